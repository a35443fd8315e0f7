package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.HintLimits;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.server.ServerOptions;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.testkit.FreePort;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code shale nodes ...} against a real node with a cluster secret: signed calls run, others fail with one line. */
class NodesCommandTest {
  private static final String SECRET = "nodes-command-secret-0123456789";

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private Node node;
  private String url;
  private Path secretFile;

  @BeforeEach
  void start() throws Exception {
    int port = FreePort.find();
    url = "http://127.0.0.1:" + port;
    Cluster cluster = new Cluster(new Placement(Topology.single(new NodeAddress("127.0.0.1", port))),
        InternalAuth.withSecret(SECRET.getBytes(StandardCharsets.UTF_8), Env.real()::wallMillis), 2_000, 16);
    node = Node.start(dir.resolve("data"), EngineOptions.defaults(), ServerOptions.defaults().withPort(port), cluster,
        HintLimits.DEFAULT);
    secretFile = dir.resolve("secret");
    SecretFile.write(secretFile, SECRET.getBytes(StandardCharsets.UTF_8));
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void compactSignedWithTheSecretFileRuns() {
    assertThat(run("nodes", "compact", "--via", url, "--cluster-secret-file", secretFile.toString())).as(err.toString()).isZero();

    assertThat(out.toString()).startsWith("compacted in ");
  }

  @Test
  void compactSignedWithTheSecretItselfRuns() {
    assertThat(run("nodes", "compact", "--via", url + "/", "--cluster-secret", SECRET)).as(err.toString()).isZero();
  }

  @Test
  void aWrongSecretFailsWithTheNodesReason() throws Exception {
    Path wrong = dir.resolve("wrong");
    SecretFile.write(wrong, "not-the-cluster-secret-at-all".getBytes(StandardCharsets.UTF_8));

    assertThat(run("nodes", "compact", "--via", url, "--cluster-secret-file", wrong.toString())).isEqualTo(Main.FAILED);

    assertThat(err.toString()).isEqualTo("shale: " + url + " refused POST /v0/admin/compact (403): "
        + "the admin request's signature does not match: a different cluster secret, or a request changed after signing"
        + System.lineSeparator());
  }

  @Test
  void noSecretFailsSayingWhichOptionGivesIt() {
    assertThat(run("nodes", "compact", "--via", url)).isEqualTo(Main.FAILED);

    assertThat(err.toString()).contains("(403)").contains("must be signed with the cluster secret")
        .contains("give the cluster secret with --cluster-secret-file").hasLineCount(1);
  }

  @Test
  void aNodeThatIsNotThereFailsInOneLine() {
    String nobody = "http://127.0.0.1:" + FreePort.find();

    assertThat(run("nodes", "compact", "--via", nobody, "--cluster-secret", SECRET)).isEqualTo(Main.FAILED);

    assertThat(err.toString()).isEqualTo("shale: cannot connect to " + nobody + ": connection refused (is a node running there?)"
        + System.lineSeparator());
  }

  @Test
  void badOptionsAreUsageErrors() {
    assertThat(run("nodes", "compact", "--via", "http://127.0.0.1:1/x", "--cluster-secret", SECRET)).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("--via: ").contains("bare http://host:port URL");
    assertThat(run("nodes", "compact", "--via", url, "--cluster-secret", "short")).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("at least 16 bytes");
    assertThat(run("nodes", "compact", "--via", url, "--cluster-secret", SECRET, "--cluster-secret-file", secretFile.toString()))
        .isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("not both");
    assertThat(run("nodes", "compact")).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("--via");
    assertThat(run("nodes")).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("missing subcommand");
  }

  @Test
  void theRootHelpListsTheNodesGroup() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("nodes");
    assertThat(run("nodes", "--help")).isZero();
    assertThat(out.toString()).contains("compact");
  }

  private int run(String... args) {
    return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }
}
