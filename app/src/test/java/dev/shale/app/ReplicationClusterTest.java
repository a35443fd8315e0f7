package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.Await;
import dev.shale.testkit.EntityClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guarantees of replication on one cluster of three node processes, shared by the tests
 * (each leaves every node running): quorum reads see quorum writes while a node is down, missed
 * writes are healed, read repair, hinted handoff.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplicationClusterTest {
  private static final Duration HEALED = Duration.ofSeconds(60);

  private TestCluster cluster;

  @BeforeAll
  void startCluster(@TempDir Path tmp) {
    cluster = new TestCluster(tmp, 3, java.util.List.of("--replica-timeout", "2000")).startAll();
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) cluster.close();
  }

  @AfterEach
  void everyNodeRunsAgain() {
    for (int i = 0; i < cluster.size(); i++) if (!cluster.node(i).isAlive()) cluster.restart(i);
    // A node takes a peer that refused a connection as down for a second: the next test starts
    // once every node reaches every other.
    for (int i = 0; i < cluster.size(); i++) {
      EntityClient all = cluster.client(i).consistency(3, 3);
      Await.until("node " + i + " to reach every replica", HEALED, () -> {
        try {
          return all.get("probe").status() == 404;
        } catch (IOException e) {
          return false;
        }
      });
    }
  }

  @Test
  void aQuorumReadSeesAQuorumWriteWhileFewerThanAQuorumAreDown() throws Exception {
    // 2/2, then one of the two replicas down: 1/2 sees the value, and the delete.
    String value22 = cluster.idWithReplicas("q22v", 0, 1);
    String deleted22 = cluster.idWithReplicas("q22d", 0, 1);
    EntityClient twoOfTwo = cluster.client(2).consistency(2, 2);
    assertThat(twoOfTwo.put(value22, bytes("v")).status()).isEqualTo(201);
    assertThat(twoOfTwo.put(deleted22, bytes("v")).status()).isEqualTo(201);
    assertThat(twoOfTwo.delete(deleted22).status()).isEqualTo(202);
    // 2/3, written with all up, then deleted while node 1 is down.
    assertThat(cluster.client(0).put("q23d", bytes("old")).status()).isEqualTo(201);

    cluster.stop(1);
    EntityClient oneOfTwo = cluster.client(2).consistency(1, 2);
    assertThat(oneOfTwo.get(value22).text()).isEqualTo("v");
    assertThat(oneOfTwo.get(deleted22).status()).isEqualTo(404);
    assertThat(cluster.client(0).put("q23v", bytes("new")).status()).as("PUT 2/3 with node 1 down").isEqualTo(201);
    assertThat(cluster.client(2).delete("q23d").status()).as("DELETE 2/3 with node 1 down").isEqualTo(202);

    // Node 1 back and node 2 down: any two of three hold the newest of every write acknowledged by two.
    cluster.restart(1);
    cluster.stop(2);
    EntityClient.Reply value = cluster.client(1).get("q23v");
    assertThat(value.status()).isEqualTo(200);
    assertThat(value.text()).isEqualTo("new");
    assertThat(cluster.client(1).get("q23d").status()).as("the delete beats the older value on node 1").isEqualTo(404);
  }

  @Test
  void aReplicaThatMissedWritesAnswersTheNewestWhenReadWithAckFrom() throws Exception {
    EntityClient client = cluster.client(0);
    assertThat(client.put("m-overwrite", bytes("old")).status()).isEqualTo(201);
    assertThat(client.put("m-delete", bytes("old")).status()).isEqualTo(201);
    assertThat(client.put("m-recreate", bytes("old")).status()).isEqualTo(201);
    assertThat(client.delete("m-recreate").status()).isEqualTo(202);

    cluster.stop(2);
    assertThat(client.put("m-write", bytes("new")).status()).isEqualTo(201);
    assertThat(client.put("m-overwrite", bytes("new")).status()).isEqualTo(201);
    assertThat(client.delete("m-delete").status()).isEqualTo(202);
    assertThat(client.put("m-recreate", bytes("new")).status()).isEqualTo(201);
    cluster.restart(2);

    EntityClient all = cluster.client(2).consistency(3, 3);
    for (String id : new String[] {"m-write", "m-overwrite", "m-recreate"}) {
      EntityClient.Reply reply = all.get(id);
      assertThat(reply.status()).as("GET %s at 3/3", id).isEqualTo(200);
      assertThat(reply.text()).as("GET %s at 3/3", id).isEqualTo("new");
    }
    assertThat(all.get("m-delete").status()).isEqualTo(404);
    // And the replica itself catches up (hints, or the repair of the reads above).
    for (String id : new String[] {"m-write", "m-overwrite", "m-recreate"}) {
      Await.until("node 2 alone to hold the newest " + id, HEALED, () -> holds(2, id, "new"));
    }
    Await.until("node 2 alone to have deleted m-delete", HEALED, () -> alone(2, "m-delete").status() == 404);
  }

  @Test
  void aReadOfDivergentReplicasRepairsTheStaleOne() throws Exception {
    // Written to nodes 0 and 1 only (from = 2), so node 2 is stale without having missed a write
    // of its own: no hint heals it, only the repair of a read with from = 3.
    String overwritten = cluster.idWithReplicas("r-over", 0, 1, 2);
    String absent = cluster.idWithReplicas("r-absent", 0, 1, 2);
    String deleted = cluster.idWithReplicas("r-del", 0, 1, 2);
    EntityClient threeOfThree = cluster.client(1).consistency(3, 3);
    EntityClient twoOfTwo = cluster.client(1).consistency(2, 2);
    assertThat(threeOfThree.put(overwritten, bytes("old")).status()).isEqualTo(201);
    assertThat(twoOfTwo.put(overwritten, bytes("new")).status()).isEqualTo(201);
    assertThat(twoOfTwo.put(absent, bytes("new")).status()).isEqualTo(201);
    assertThat(threeOfThree.put(deleted, bytes("old")).status()).isEqualTo(201);
    assertThat(twoOfTwo.delete(deleted).status()).isEqualTo(202);
    assertThat(alone(2, overwritten).text()).as("node 2 is stale").isEqualTo("old");
    assertThat(alone(2, absent).status()).isEqualTo(404);
    assertThat(alone(2, deleted).text()).isEqualTo("old");
    long repairsBefore = cluster.counter(1, "readRepairs");

    assertThat(threeOfThree.get(overwritten).text()).isEqualTo("new");
    assertThat(threeOfThree.get(absent).text()).isEqualTo("new");
    assertThat(threeOfThree.get(deleted).status()).isEqualTo(404);

    Await.until("node 2 alone to return the newest", HEALED,
        () -> holds(2, overwritten, "new") && holds(2, absent, "new") && alone(2, deleted).status() == 404);
    Await.until("three repairs counted", HEALED, () -> cluster.counter(1, "readRepairs") >= repairsBefore + 3);
  }

  @Test
  void aWriteAReplicaMissedIsHandedOffOnceItIsBackAndNoLongerNeedsTheCoordinator() throws Exception {
    cluster.stop(2);
    long deliveredBefore = cluster.counter(0, "hintsDelivered");
    assertThat(cluster.client(0).put("h-value", bytes("handed off")).status()).as("PUT 2/3 with node 2 down").isEqualTo(201);
    assertThat(cluster.client(0).delete("h-deleted").status()).isEqualTo(202);
    cluster.restart(2);
    Await.until("node 0 to deliver its hints to node 2", HEALED,
        () -> cluster.counter(0, "hintsDelivered") >= deliveredBefore + 2);
    cluster.stop(0); // the coordinator goes down: node 2 holds the write by itself
    assertThat(alone(2, "h-value").text()).isEqualTo("handed off");
  }

  @Test
  void hintsSurviveARestartOfTheCoordinator() throws Exception {
    cluster.stop(2);
    long storedBefore = cluster.counter(0, "hintsStored");
    assertThat(cluster.client(0).put("h-restart", bytes("kept on disk")).status()).isEqualTo(201);
    Await.until("node 0 to keep the hint", HEALED, () -> cluster.counter(0, "hintsStored") >= storedBefore + 1);
    cluster.stop(0);
    cluster.restart(0);
    cluster.restart(2);
    Await.until("node 0, restarted, to deliver the hint", HEALED, () -> cluster.counter(0, "hintsDelivered") >= 1);
    assertThat(alone(2, "h-restart").text()).isEqualTo("kept on disk");
  }

  @Test
  void underLoadEveryAcknowledgedWriteSurvivesAKill9AndRestartOfANode() throws Exception {
    Writer writer = new Writer(cluster);
    Thread thread = new Thread(writer, "steady-writer");
    thread.start();
    try {
      Await.until("100 writes acknowledged", HEALED, () -> writer.acknowledged.size() >= 100);
      cluster.node(1).kill(); // kill -9, mid-run
      int beforeRestart = writer.acknowledged.size();
      Await.until("100 more writes acknowledged with node 1 dead", HEALED, () -> writer.acknowledged.size() >= beforeRestart + 100);
      cluster.restart(1);
      int afterRestart = writer.acknowledged.size();
      Await.until("100 more writes acknowledged after the restart", HEALED, () -> writer.acknowledged.size() >= afterRestart + 100);
    } finally {
      writer.stop = true;
      thread.join();
    }
    assertThat(writer.failure).isNull();
    for (int i : writer.acknowledged) {
      EntityClient.Reply reply = cluster.client(i % 3).get("load-" + i);
      assertThat(reply.status()).as("GET load-%d at 2/3", i).isEqualTo(200);
      assertThat(reply.text()).isEqualTo("v" + i);
    }
  }

  /** PUTs load-0, load-1, ... at a steady 200 per second, round robin over the nodes, with the default 2/3. */
  private static final class Writer implements Runnable {
    private static final long PERIOD_NANOS = 5_000_000;
    final java.util.Queue<Integer> acknowledged = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final EntityClient[] clients;
    volatile boolean stop;
    volatile Throwable failure;

    Writer(TestCluster cluster) {
      clients = new EntityClient[cluster.size()];
      for (int n = 0; n < clients.length; n++) clients[n] = cluster.client(n);
    }

    @Override
    public void run() {
      long next = System.nanoTime();
      for (int i = 0; !stop; i++) {
        try {
          int status = clients[i % clients.length].put("load-" + i, bytes("v" + i)).status();
          if (status == 201) acknowledged.add(i);
          else if (status != 503 && status != 504) throw new AssertionError("PUT load-" + i + " answered " + status);
        } catch (IOException e) {
          // The node it was sent to is down: not acknowledged.
        } catch (Throwable t) {
          failure = t;
          return;
        }
        // Paces the writer (a steady rate), not a wait for a condition.
        next += PERIOD_NANOS;
        java.util.concurrent.locks.LockSupport.parkNanos(next - System.nanoTime());
      }
    }
  }

  private boolean holds(int node, String id, String value) {
    EntityClient.Reply reply = alone(node, id);
    return reply.status() == 200 && Arrays.equals(reply.body(), bytes(value));
  }

  private EntityClient.Reply alone(int node, String id) {
    try {
      return cluster.readAlone(node, id);
    } catch (IOException e) {
      return new EntityClient.Reply(-1, new byte[0]);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
