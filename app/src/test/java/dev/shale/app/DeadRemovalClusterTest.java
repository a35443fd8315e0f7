package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.AtOnce;
import dev.shale.testkit.Await;
import dev.shale.testkit.EntityClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member killed with SIGKILL and removed with {@code nodes remove --dead}, on real node
 * processes (docs/design.md, "Membership" and "Handoff"): the keys it replicated are rebuilt on
 * the members that take them over from the other replicas, so that once the command exits 0 every
 * key has its full replica count again, newest versions, deletions included.
 */
class DeadRemovalClusterTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final int KEYS = 2000;
  // Keys and values of fixed shapes, so that a local scan's body (entries back to back) parses.
  private static final Pattern ENTRY = Pattern.compile("(dr-\\d{5})\n((?:old|new)-\\d{5})");

  @TempDir Path dir;

  @Test
  void theDeadMembersCopiesAreRebuiltOnTheRemainingMembersBeforeTheRemovalEnds() throws IOException {
    try (TestCluster cluster = new TestCluster(dir, 4, List.of("--replication-factor", "3")).startAll()) {
      List<String> urls = cluster.urls();
      MembershipClusterTest.awaitTopology(urls, urls, "normal");
      Map<String, String> live = new HashMap<>();
      Set<String> deleted = new HashSet<>();
      writeOverwriteAndDelete(urls, live, deleted);
      // Every replica took every write (none is owed one as a hint) before the node dies.
      for (int i = 0; i < urls.size(); i++) {
        int node = i;
        Await.until("node " + i + " delivered its hints", TestCluster.READY, () -> cluster.counter(node, "hintsPending") == 0);
      }

      cluster.node(3).kill();
      MembershipClusterTest.Removal removal = MembershipClusterTest.remove(cluster, urls.get(0), urls.get(3), true);
      assertThat(removal.status()).as(removal.output()).isZero();

      List<String> left = urls.subList(0, 3);
      MembershipClusterTest.awaitTopology(left, left, "normal");
      for (String url : left) {
        Map<String, String> held = localScan(url);
        List<String> lacking = live.keySet().stream().filter(id -> !held.containsKey(id)).sorted().toList();
        assertThat(lacking).as("keys %s lacks after the dead removal (%d of %d)", url, lacking.size(), live.size()).isEmpty();
        for (Map.Entry<String, String> e : live.entrySet()) {
          assertThat(held.get(e.getKey())).as("%s on %s", e.getKey(), url).isEqualTo(e.getValue());
        }
        assertThat(held.keySet()).as("deleted keys %s holds", url).doesNotContainAnyElementsOf(deleted);
      }
      for (String id : deleted) {
        assertThat(new EntityClient(left.get(1)).getOrFail(id).status()).as("GET %s", id).isEqualTo(404);
      }
      // The command printed the member's state while its copies were rebuilt, as a live removal does.
      assertThat(removal.output()).contains(urls.get(3) + " is dead", "removed " + urls.get(3));

      // Restarted on its old data, the removed node learns it from the members that refuse it
      // (issue 32, item 3: on main it served on, as "normal" at its old map version).
      cluster.restart(3);
      Await.until("the restarted node says it was removed", TestCluster.READY, () -> TestCluster.status(urls.get(3)).contains("\"status\": \"removed\""));
      EntityClient.Reply refused = new EntityClient(urls.get(3)).put("dr-after", "v".getBytes(StandardCharsets.UTF_8));
      assertThat(refused.status()).as(refused.text()).isEqualTo(503);
      assertThat(refused.text()).contains("was removed from the cluster");
      assertThat(cluster.node(3).log()).contains("was removed from the cluster: http://127.0.0.1:");
    }
  }

  /**
   * Writes every key, then a newer version of a tenth of them and deletes another tenth, at the
   * default consistency, key i through node i % 4: each step through the four nodes at once.
   */
  private static void writeOverwriteAndDelete(List<String> urls, Map<String, String> live, Set<String> deleted) {
    eachNodesKeys(urls, 0, 1, (client, i) -> put(client, i, "old"));
    eachNodesKeys(urls, 0, 10, (client, i) -> put(client, i, "new"));
    eachNodesKeys(urls, 5, 10, (client, i) -> {
      String id = String.format("dr-%05d", i);
      EntityClient.Reply reply = client.delete(id);
      assertThat(reply.status()).as("DELETE %s: %s", id, reply.text()).isEqualTo(202);
    });
    for (int i = 0; i < KEYS; i++) live.put(String.format("dr-%05d", i), String.format("%s-%05d", i % 10 == 0 ? "new" : "old", i));
    for (int i = 5; i < KEYS; i += 10) {
      live.remove(String.format("dr-%05d", i));
      deleted.add(String.format("dr-%05d", i));
    }
  }

  private interface KeyRequest {
    void send(EntityClient client, int i) throws IOException;
  }

  /** Sends {@code request} for keys from, from + step, ... below KEYS, key i through node i % 4, the nodes at once. */
  private static void eachNodesKeys(List<String> urls, int from, int step, KeyRequest request) {
    AtOnce.each(List.of(0, 1, 2, 3), node -> {
      EntityClient client = new EntityClient(urls.get(node));
      for (int i = from; i < KEYS; i += step) if (i % urls.size() == node) request.send(client, i);
    });
  }

  private static void put(EntityClient client, int i, String generation) throws IOException {
    String id = String.format("dr-%05d", i);
    String value = String.format("%s-%05d", generation, i);
    EntityClient.Reply reply = client.put(id, value.getBytes(StandardCharsets.UTF_8));
    assertThat(reply.status()).as("PUT %s: %s", id, reply.text()).isEqualTo(201);
  }

  /** The node's own live entries of the test's keys (its local scan), by key. */
  private static Map<String, String> localScan(String baseUrl) throws IOException {
    String body;
    try {
      HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + "/v0/entities?start=dr-&end=dr."))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).isEqualTo(200);
      body = answer.body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
    Map<String, String> entries = new HashMap<>();
    Matcher m = ENTRY.matcher(body);
    int end = 0;
    List<String> unparsed = new ArrayList<>();
    while (m.find()) {
      if (m.start() != end) unparsed.add(body.substring(end, m.start()));
      entries.put(m.group(1), m.group(2));
      end = m.end();
    }
    if (end != body.length()) unparsed.add(body.substring(end));
    assertThat(unparsed).as("parts of %s's scan that are not entries", baseUrl).isEmpty();
    return entries;
  }
}
