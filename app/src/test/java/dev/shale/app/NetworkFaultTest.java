package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.testkit.Await;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.netns.DelayedLinks;
import dev.shale.testkit.netns.NamespaceNetwork;
import dev.shale.testkit.netns.NodeSignals;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults between real hosts: three node processes, each in its own network namespace
 * ({@link NamespaceNetwork}), with one node's links cut, slowed, held or made lossy, or the node
 * stopped. Every test asserts what clients see and what each replica ends up holding, through
 * the public HTTP API only (so it holds whatever protocol the nodes speak to each other), and
 * waits only for conditions. A replica's own copy is read with a scan of that node alone
 * ({@code GET /v0/entities} without {@code scope=cluster}: the node's own entries, never
 * coordinated). Skipped where namespaces cannot be made.
 */
class NetworkFaultTest {
  private static final Duration CAUGHT_UP = Duration.ofSeconds(60);
  private static final int SLOW = 2; // the node whose links a test acts on

  @Test
  void aPartitionedNodeAnswers504WhileTheMajorityKeepsWritingAndCatchesUpThroughHintsAfterHealing(@TempDir Path tmp) throws Exception {
    try (NamespaceNetwork network = NamespaceNetwork.create(3);
        NamespaceCluster cluster = new NamespaceCluster(network, tmp, List.of("--replica-timeout", "1000"))) {
      Map<String, String> written = new TreeMap<>();
      EntityClient majority = cluster.client(0);
      writeAll(majority, "p-", 0, 20, written);
      long deliveredBefore = cluster.counter(0, "hintsDelivered");

      network.partition(SLOW);
      writeAll(majority, "p-", 20, 80, written);
      EntityClient isolated = cluster.client(SLOW).consistency(2, 3);
      assertThat(isolated.put("isolated-write", bytes("x")).status()).as("PUT at 2/3 to the isolated node").isEqualTo(504);
      assertThat(isolated.get("p-00000").status()).as("GET at 2/3 from the isolated node").isEqualTo(504);
      writeAll(majority, "p-", 80, 100, written);
      Await.until("node 0 to keep hints for the isolated node", CAUGHT_UP, () -> cluster.counter(0, "hintsStored") > 0);

      network.heal(SLOW);
      awaitEveryLocalCopy(cluster, "p-", written);
      Await.until("node 0 to count its hints delivered", CAUGHT_UP, () -> cluster.counter(0, "hintsDelivered") > deliveredBefore);
      readAll(cluster.client(1), written);
      // The healed node coordinates again once it takes its peers as up (today a peer it failed to
      // reach counts as down for a second after that).
      EntityClient healed = cluster.client(SLOW);
      Await.until("the healed node to coordinate reads again", CAUGHT_UP, () -> healed.getOrFail("p-00000").status() == 200);
      readAll(healed, written);
    }
  }

  @Test
  void aSlowOrHeldReplicaNeitherFailsNorHoldsUpDefaultRequestsThroughAnotherNode(@TempDir Path tmp) throws Exception {
    try (NamespaceNetwork network = NamespaceNetwork.create(3)) {
      DelayedLinks slow = network.delayLinksOf(SLOW); // before the nodes start: every link of node 2 goes through it
      try (NamespaceCluster cluster = new NamespaceCluster(network, tmp, List.of("--replica-timeout", "2000"))) {
        Map<String, String> written = new TreeMap<>();
        EntityClient client = cluster.client(0);
        slow.delay(Duration.ofMillis(100));
        writeAll(client, "d-", 0, 30, written);
        readAll(client, written);
        readAll(cluster.client(0).consistency(3, 3), written); // the slow replica does answer, 100 ms late
        assertThat(slow.deliveredBytes()).as("bytes through the slow links").isPositive();

        // Held: the slow links deliver nothing until released, so a request that waited for node 2
        // could not complete. Every one does.
        slow.hold();
        long deliveredWhenHeld = slow.deliveredBytes();
        Map<String, String> whileHeld = new TreeMap<>();
        writeAll(client, "d-", 30, 60, whileHeld);
        readAll(client, whileHeld);
        readAll(cluster.client(1), written);
        assertThat(slow.deliveredBytes()).as("bytes the held links let through").isEqualTo(deliveredWhenHeld);

        slow.release();
        slow.delay(Duration.ZERO);
        written.putAll(whileHeld);
        awaitEveryLocalCopy(cluster, "d-", written);
      }
    }
  }

  @Test
  void requestsAcrossALinkThatLosesATenthOfItsPacketsSucceed(@TempDir Path tmp) throws Exception {
    try (NamespaceNetwork network = NamespaceNetwork.create(3);
        NamespaceCluster cluster = new NamespaceCluster(network, tmp, List.of("--replica-timeout", "5000"))) {
      network.loseShare(SLOW, 10); // node 2's links to its peers only: the test's own connections lose nothing
      EntityClient everyReplica = cluster.client(0).consistency(3, 3); // each request crosses the lossy links
      EntityClient onTheLossyNode = cluster.client(SLOW); // coordinates over its lossy links
      int retries = 0;
      for (int i = 0; i < 60; i++) {
        String id = String.format("loss-%05d", i);
        String value = "v" + i;
        retries += succeedWithin3(() -> everyReplica.put(id, bytes(value)), 201, "PUT 3/3 " + id).retries();
        EntityClient.Reply read = succeedWithin3(() -> onTheLossyNode.get(id), 200, "GET " + id + " through node 2").reply();
        assertThat(read.text()).isEqualTo(value);
        retries += succeedWithin3(() -> everyReplica.get(id), 200, "GET 3/3 " + id).retries();
      }
      System.out.println("NetworkFaultTest: " + network.lostPackets(SLOW) + " packets dropped, " + retries + " requests retried");
      assertThat(network.lostPackets(SLOW)).as("packets the lossy links dropped").isPositive();
    }
  }

  @Test
  void aPartitionInTheMiddleOfAClusterScanCutsTheAnswerInsteadOfEndingItShort(@TempDir Path tmp) throws Exception {
    int values = 256; // 16 MiB per node: far more than the buffers between a node and the client
    try (NamespaceNetwork network = NamespaceNetwork.create(3);
        NamespaceCluster cluster = new NamespaceCluster(network, tmp, List.of("--replica-timeout", "2000"))) {
      EntityClient everyReplica = cluster.client(0).consistency(3, 3);
      ExecutorService writers = Executors.newFixedThreadPool(4);
      try {
        List<Future<Integer>> puts = new ArrayList<>();
        for (int i = 0; i < values; i++) {
          int n = i;
          puts.add(writers.submit(() -> everyReplica.put(scanKey(n), scanValue(n)).status()));
        }
        for (Future<Integer> put : puts) assertThat(put.get()).isEqualTo(201);
      } finally {
        writers.shutdownNow();
      }

      try (ScanStream scan = ScanStream.open(cluster.url(0), "start=scan-&end=scan.&scope=cluster", 60_000)) {
        assertThat(scan.status()).isEqualTo(200);
        int read = 0;
        for (; read < 16; read++) expectEntry(scan.next(), read);
        network.partition(SLOW);
        int[] received = {read};
        assertThatThrownBy(() -> {
          for (ScanStream.Entry entry; (entry = scan.next()) != null; received[0]++) expectEntry(entry, received[0]);
        }).as("the rest of the scan, node 2 cut off").isInstanceOf(IOException.class).isNotInstanceOf(SocketTimeoutException.class);
        assertThat(scan.complete()).as("terminating chunk").isFalse();
        assertThat(received[0]).as("entries before the cut").isLessThan(values);
      }
    }
  }

  /**
   * Stops node 2 (SIGSTOP) while four clients PUT and GET at the default 2/3 through nodes 0 and
   * 1 for 5 s, then continues it. Every request completes while node 2 is stopped: as its replica
   * calls time out only after a minute (and the clients give up after 30 s), a request that
   * waited for it could not. That holds for the answer budget too, at its default (a quarter of
   * -Xmx128m, a quarter of that per connection): a read decided without node 2 keeps only its
   * answer and one value, not a value per replica still out, so a connection's reads do not use
   * up its share while node 2's calls are out. Once continued, node 2's own copy catches up (its
   * queued requests and the hints).
   */
  @Test
  void aStoppedReplicaHoldsUpNoRequestAtTheDefaultAnswerBudgetAndCatchesUpOnceContinued(@TempDir Path tmp) throws Exception {
    try (NamespaceNetwork network = NamespaceNetwork.create(3);
        NamespaceCluster cluster = new NamespaceCluster(network, tmp, List.of("--replica-timeout", "60000"))) {
      long pid = cluster.node(SLOW).pid();
      NodeSignals.stop(pid);
      Await.until("node 2 to be stopped", Duration.ofSeconds(10), () -> NodeSignals.isStopped(pid));
      Map<String, String> written = new ConcurrentSkipListMap<>();
      ExecutorService load = Executors.newFixedThreadPool(4);
      try {
        long end = System.nanoTime() + Duration.ofSeconds(5).toNanos(); // the length of the load, not a wait
        List<Future<?>> clients = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
          EntityClient client = cluster.client(c % 2);
          String prefix = "s" + c + "-";
          clients.add(load.submit(() -> {
            for (int i = 0; System.nanoTime() < end || i < 50; i++) {
              String id = String.format("%s%05d", prefix, i);
              assertThat(client.put(id, bytes(id)).status()).as("PUT %s", id).isEqualTo(201);
              assertThat(client.get(id).text()).as("GET %s", id).isEqualTo(id);
              written.put(id, id);
            }
            return null;
          }));
        }
        for (Future<?> client : clients) client.get();
      } finally {
        load.shutdownNow();
      }
      assertThat(NodeSignals.isStopped(pid)).as("node 2 still stopped after every request completed").isTrue();
      System.out.println("NetworkFaultTest: " + written.size() + " PUTs and GETs while node 2 was stopped");

      NodeSignals.resume(pid);
      awaitEveryLocalCopy(cluster, "s", written);
    }
  }

  private static void writeAll(EntityClient client, String prefix, int from, int to, Map<String, String> written) throws IOException {
    for (int i = from; i < to; i++) {
      String id = String.format("%s%05d", prefix, i);
      assertThat(client.put(id, bytes("value " + id)).status()).as("PUT %s", id).isEqualTo(201);
      written.put(id, "value " + id);
    }
  }

  private static void readAll(EntityClient client, Map<String, String> written) throws IOException {
    for (var entry : written.entrySet()) {
      EntityClient.Reply reply = client.get(entry.getKey());
      assertThat(reply.status()).as("GET %s", entry.getKey()).isEqualTo(200);
      assertThat(reply.text()).isEqualTo(entry.getValue());
    }
  }

  /** Waits until every node's own copy of the keys starting with {@code prefix} is exactly {@code expected}. */
  private static void awaitEveryLocalCopy(NamespaceCluster cluster, String prefix, Map<String, String> expected) {
    for (int i = 0; i < cluster.size(); i++) {
      int node = i;
      Await.until("node " + node + "'s own copy to hold all " + expected.size() + " keys", CAUGHT_UP,
          () -> expected.equals(localCopy(cluster, node, prefix)));
    }
  }

  /** Node {@code i}'s own entries whose keys start with {@code prefix} (a scan of that node alone, the prefix's last character being ASCII); empty if it cannot be read. */
  private static Map<String, String> localCopy(NamespaceCluster cluster, int i, String prefix) {
    String end = prefix.substring(0, prefix.length() - 1) + (char) (prefix.charAt(prefix.length() - 1) + 1);
    Map<String, String> copy = new TreeMap<>();
    try (ScanStream scan = ScanStream.open(cluster.url(i), "start=" + prefix + "&end=" + end, 30_000)) {
      if (scan.status() != 200) return Map.of();
      for (ScanStream.Entry entry; (entry = scan.next()) != null; ) {
        copy.put(entry.key(), new String(entry.value(), StandardCharsets.UTF_8));
      }
      return copy;
    } catch (IOException e) {
      return Map.of();
    }
  }

  private interface Request {
    EntityClient.Reply send() throws IOException;
  }

  private record Attempted(EntityClient.Reply reply, int retries) {}

  /** Sends {@code request} up to three times until it answers {@code status}; fails the test if none did. */
  private static Attempted succeedWithin3(Request request, int status, String what) {
    List<String> failures = new ArrayList<>();
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        EntityClient.Reply reply = request.send();
        if (reply.status() == status) return new Attempted(reply, attempt);
        failures.add(reply.status() + " " + reply.text());
      } catch (IOException e) {
        failures.add(e.toString());
      }
    }
    throw new AssertionError(what + " failed three times: " + failures);
  }

  private static void expectEntry(ScanStream.Entry entry, int n) {
    assertThat(entry).as("entry %d", n).isNotNull();
    assertThat(entry.key()).isEqualTo(scanKey(n));
    assertThat(entry.value()).as("value of %s", entry.key()).isEqualTo(scanValue(n));
  }

  private static String scanKey(int n) {
    return String.format("scan-%05d", n);
  }

  private static byte[] scanValue(int n) {
    byte[] value = new byte[64 << 10];
    new SplittableRandom(n).nextBytes(value);
    return value;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
