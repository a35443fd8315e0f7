package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.EntityClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code shale nodes endpoints KEY} against three real node processes with replication factor 2:
 * the two members it names, in its order, are the nodes that hold the key (each asked alone over
 * the internode protocol), and the third does not.
 */
class NodesEndpointsClusterTest {
  private static final Pattern MEMBER_LINE = Pattern.compile("^(\\d)  (http://\\S+)  normal$", Pattern.MULTILINE);

  @TempDir static Path tmp;
  private static TestCluster cluster;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeAll
  static void start() {
    cluster = new TestCluster(tmp, 3, List.of("--replication-factor", "2")).startAll();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) cluster.close();
  }

  @Test
  void theMembersNamedHoldTheKeyInPreferenceOrder() throws Exception {
    EntityClient client = cluster.client(0);
    for (int k = 0; k < 6; k++) {
      String id = "endpoints-" + k;
      assertThat(client.put(id, id.getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);

      List<String> named = endpoints(id);

      assertThat(named).as("replicas of %s", id).hasSize(2);
      List<String> holding = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        if (cluster.readAlone(i, id).status() == 200) holding.add(cluster.urls().get(i));
      }
      assertThat(holding).as("the nodes that hold %s", id).containsExactlyInAnyOrderElementsOf(named);
      assertThat(named).as("in preference order").isEqualTo(
          cluster.replicasOf(id, 2).stream().map(i -> cluster.urls().get(i)).toList());
    }
  }

  @Test
  void jsonAndFromAndBadUsage() {
    assertThat(run("nodes", "endpoints", "k", "--json", "--from", "3", "--via", cluster.urls().get(1),
        "--cluster-secret-file", cluster.secretFile().toString())).as(err.toString()).isZero();
    assertThat(out.toString()).startsWith("{\"key\": \"k\", \"version\": ").contains("\"replicationFactor\": 2")
        .contains("\"replicas\": [{\"url\": \"http://127.0.0.1:");
    assertThat(out.toString().split("\"url\"", -1)).as("three replicas, listed before and after the change").hasSize(7);

    assertThat(run("nodes", "endpoints", "k", "--from", "4", "--via", cluster.urls().get(1),
        "--cluster-secret-file", cluster.secretFile().toString())).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("more than the cluster's 3 members");
    assertThat(run("nodes", "endpoints", "--via", cluster.urls().get(1))).isEqualTo(Main.USAGE);
  }

  private List<String> endpoints(String id) {
    out.getBuffer().setLength(0);
    int status = run("nodes", "endpoints", id, "--via", cluster.urls().get(2),
        "--cluster-secret-file", cluster.secretFile().toString());
    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString()).startsWith("'" + id + "': 2 replicas of 2, most preferred first (cluster map version ");
    List<String> urls = new ArrayList<>();
    Matcher line = MEMBER_LINE.matcher(out.toString());
    while (line.find()) {
      assertThat(line.group(1)).isEqualTo(Integer.toString(urls.size() + 1));
      urls.add(line.group(2));
    }
    return urls;
  }

  private int run(String... args) {
    return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }
}
