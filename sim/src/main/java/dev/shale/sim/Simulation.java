package dev.shale.sim;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Entry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * One run of a whole cluster from one seed (docs/design.md, "Simulation"): a few nodes, each with
 * the real engine, coordinator and hint delivery, under seeded faults for {@link
 * #FAULT_MILLIS} of virtual time while clients write, delete and read; then the faults stop, the
 * hints drain, and the checks run. Everything runs on the caller's thread, in virtual time, so
 * the same seed gives the same run, event for event ({@link SimResult#trace}).
 *
 * <p>The checks: a quorum read sees the newest acknowledged write of its key (or a newer
 * record) and only records some coordinator sent; after the heal, every hint is delivered
 * within {@link #DRAIN_MILLIS}, and then every record a replica stored or was hinted is at that
 * replica (or superseded there); every request after the heal (a write of each key,
 * then a read of each at ALL, which read-repairs) succeeds within {@link #REQUEST_DEADLINE_MILLIS};
 * once those are done, all
 * replicas of a key hold the same newest record, no older than its newest acknowledged write, so
 * no deleted value came back; and nothing threw.
 */
public final class Simulation {
  static final long FAULT_MILLIS = 20_000;
  static final long DRAIN_MILLIS = 60_000;
  static final long REQUEST_DEADLINE_MILLIS = 5_000;
  /** Virtual time 0 is this wall-clock time, so versions look like real ones. */
  private static final long EPOCH_MILLIS = 1_750_000_000_000L;
  private static final int REPLICAS = 3;
  private static final Consistency QUORUM = new Consistency(Consistency.quorum(REPLICAS), REPLICAS);
  private static final Consistency ALL = new Consistency(REPLICAS, REPLICAS);

  private final SplittableRandom random;
  private final VirtualTime time = new VirtualTime();
  private final Trace trace;
  private final History history = new History();
  private final SimCluster cluster;
  private final List<String> failures = new ArrayList<>();
  private final List<String> keys = new ArrayList<>();
  private final StringBuilder scenario = new StringBuilder();
  private final Path directory;

  private Simulation(long seed, Path directory, int keptEvents, int dropWritesOnNode) {
    this.random = new SplittableRandom(seed);
    this.directory = directory;
    this.trace = new Trace(time, keptEvents, directory);
    NetworkFaults faults = NetworkFaults.random(random);
    this.cluster = new SimCluster(time, trace, new SimNetwork(time, random.split(), trace, faults), history);
    int size = REPLICAS + random.nextInt(3);
    scenario.append(size).append(" nodes; network ").append(faults);
    for (int i = 0; i < size; i++) {
      NodeClock clock = randomClock();
      NodeAddress address = new NodeAddress("10.0.0." + (i + 1), 7000);
      cluster.add(new SimNode(cluster, i, address, clock, directory.resolve("node-" + i), random.nextLong(), i == dropWritesOnNode));
      scenario.append("; ").append(address.id()).append(": ").append(clock);
    }
    int keyCount = 3 + random.nextInt(6);
    for (int i = 0; i < keyCount; i++) keys.add("k" + i);
  }

  /**
   * Runs the simulation of {@code seed} in {@code directory} (created; deleted afterwards), keeping
   * the last {@code keptEvents} events of its trace for the result.
   */
  public static SimResult run(long seed, Path directory, int keptEvents) {
    return run(seed, directory, keptEvents, -1);
  }

  /** {@link #run}, with node {@code dropWritesOnNode} a replica that acknowledges writes and stores nothing (-1: none). */
  static SimResult run(long seed, Path directory, int keptEvents, int dropWritesOnNode) {
    Simulation simulation = new Simulation(seed, directory, keptEvents, dropWritesOnNode);
    try {
      simulation.runPhases();
    } catch (RuntimeException | Error e) {
      simulation.fail("exception at " + simulation.time.nowMillis() + " ms: " + e + stackTop(e));
    } finally {
      for (SimNode node : simulation.cluster.nodes()) node.stop();
      deleteTree(directory);
    }
    return new SimResult(seed, simulation.trace.hex(), List.copyOf(simulation.failures), simulation.scenario.toString(),
        simulation.trace.events(), simulation.time.nowMillis(), simulation.trace.latest());
  }

  private void runPhases() {
    for (SimNode node : cluster.nodes()) node.start();
    scheduleWorkload();
    scheduleCrashes();
    scheduleDiskFaults();
    schedulePartitions();
    time.runUntil(FAULT_MILLIS);
    heal();
    if (!drainHints()) return;
    checkOwedRecordsArrived();
    writeEveryKey();
    readEveryKeyAtAll();
    checkReplicasAgree();
  }

  // ---- the scenario ----

  private NodeClock randomClock() {
    long skew = random.nextLong(-2_000, 2_001);
    long drift = random.nextLong(-1_000, 1_001);
    boolean steps = random.nextInt(3) == 0;
    long stepAt = steps ? random.nextLong(FAULT_MILLIS) : Long.MAX_VALUE;
    long stepBack = steps ? random.nextLong(1, 5_001) : 0;
    return new NodeClock(EPOCH_MILLIS, skew, drift, stepAt, stepBack);
  }

  private void scheduleWorkload() {
    int operations = 50 + random.nextInt(250);
    for (int i = 0; i < operations; i++) {
      long at = random.nextLong(FAULT_MILLIS);
      int coordinator = random.nextInt(cluster.nodes().size());
      String key = keys.get(random.nextInt(keys.size()));
      int kind = random.nextInt(100);
      // Mostly the default, 2 of 3; else any of 1 to 3 (the checks during the run hold where R + W > N).
      Consistency consistency = random.nextInt(3) == 0 ? new Consistency(1 + random.nextInt(REPLICAS), REPLICAS) : QUORUM;
      time.after(at, () -> {
        SimNode node = cluster.nodes().get(coordinator);
        if (!node.isUp()) {
          trace.event(node.address().id() + " is down: no request through it");
          return;
        }
        if (kind < 45) write(node, key, key + "=" + history.writes().size(), consistency, -1);
        else if (kind < 60) write(node, key, null, consistency, -1);
        else read(node, key, consistency, -1);
      });
    }
    scenario.append("; ").append(operations).append(" requests on ").append(keys.size()).append(" keys");
  }

  private void scheduleCrashes() {
    for (SimNode node : cluster.nodes()) {
      int crashes = random.nextInt(3); // 0, 1 or 2
      for (int i = 0; i < crashes; i++) scheduleCrash(node);
    }
  }

  /** A crash at a random moment of the faults (skipped if the node is down then), and a start after a while. */
  private void scheduleCrash(SimNode node) {
    long at = random.nextLong(FAULT_MILLIS);
    long downFor = random.nextLong(100, 8_000);
    scenario.append("; ").append(node.address().id()).append(" crashes at ").append(at).append(" ms for ").append(downFor).append(" ms");
    time.after(at, () -> {
      if (!node.isUp()) return;
      node.crash();
      time.after(downFor, () -> {
        if (!node.isUp()) node.start();
      });
    });
  }

  /** For a node in four, a spell of a failing disk, after which the node is restarted. */
  private void scheduleDiskFaults() {
    for (SimNode node : cluster.nodes()) {
      if (random.nextInt(4) != 0) continue;
      long at = random.nextLong(FAULT_MILLIS);
      long lasts = random.nextLong(100, 5_000);
      double chance = 0.05 + random.nextDouble(0.5);
      scenario.append("; ").append(node.address().id()).append(" disk fails at ").append(at).append(" ms for ").append(lasts)
          .append(" ms");
      time.after(at, () -> {
        if (!node.isUp()) return;
        int life = node.diskFails(chance);
        time.after(lasts, () -> node.restartIfLife(life));
      });
    }
  }

  private void schedulePartitions() {
    int partitions = random.nextInt(4);
    List<SimNode> nodes = cluster.nodes();
    for (int i = 0; i < partitions; i++) {
      long at = random.nextLong(FAULT_MILLIS);
      long lasts = random.nextLong(200, 6_000);
      NodeAddress from = nodes.get(random.nextInt(nodes.size())).address();
      NodeAddress to = nodes.get(random.nextInt(nodes.size())).address();
      boolean bothWays = random.nextBoolean();
      if (from.equals(to)) continue;
      scenario.append("; cut ").append(from.id()).append(bothWays ? "<>" : ">").append(to.id()).append(" at ").append(at)
          .append(" ms for ").append(lasts).append(" ms");
      time.after(at, () -> {
        cluster.network().cut(from, to, bothWays);
        time.after(lasts, () -> cluster.network().mend());
      });
    }
  }

  // ---- requests and the check during the run ----

  /** A write; {@code deadlineMillis} &gt;= 0: it must succeed by then (a request after the heal). */
  private void write(SimNode node, String key, @Nullable String value, Consistency consistency, long deadlineMillis) {
    History.Write write = history.issue(key, value, time.nowMillis(), node.address().id(), consistency.ack());
    trace.event("request " + write);
    byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
    byte[] valueBytes = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
    history.takeLastSentVersion(); // none yet: a write refused before it is sent has no version
    node.write(keyBytes, valueBytes, consistency, outcome -> {
      write.decidedAtMillis = time.nowMillis();
      write.acknowledged = outcome.shortfall() == null;
      trace.event("decided #" + write.id + (write.acknowledged ? " acknowledged" : " failed: " + outcome.shortfall()));
      if (!write.acknowledged && deadlineMillis >= 0) fail(write + " after the heal failed: " + outcome.shortfall());
    }, () -> trace.event("all in #" + write.id));
    write.version = history.takeLastSentVersion();
    if (deadlineMillis >= 0) {
      time.after(deadlineMillis - write.issuedAtMillis, () -> {
        if (write.decidedAtMillis < 0) fail(write + " after the heal was not decided within " + REQUEST_DEADLINE_MILLIS + " ms");
      });
    }
  }

  /** A read; {@code deadlineMillis} &gt;= 0: it must succeed by then (a request after the heal). */
  private void read(SimNode node, String key, Consistency consistency, long deadlineMillis) {
    long issuedAt = time.nowMillis();
    String name = "read of " + key + " " + consistency + " through " + node.address().id() + " at " + issuedAt + " ms";
    trace.event("request " + name);
    boolean[] decided = {false};
    node.read(key.getBytes(StandardCharsets.UTF_8), consistency, outcome -> {
      decided[0] = true;
      trace.event("decided " + name + ": " + (outcome.shortfall() == null ? History.describe(outcome.newest()) : outcome.shortfall()));
      if (outcome.shortfall() != null) {
        if (deadlineMillis >= 0) fail(name + " after the heal failed: " + outcome.shortfall());
        return;
      }
      checkRead(name, key, consistency, issuedAt, outcome.newest());
    });
    if (deadlineMillis >= 0) {
      time.after(deadlineMillis - issuedAt, () -> {
        if (!decided[0]) fail(name + " after the heal was not decided within " + REQUEST_DEADLINE_MILLIS + " ms");
      });
    }
  }

  private void checkRead(String name, String key, Consistency consistency, long issuedAt, @Nullable Entry newest) {
    // The writes this read must see: those whose replica set meets its own (R + W > N).
    History.Write acknowledged = history.newestAcknowledged(key, issuedAt, REPLICAS - consistency.ack() + 1);
    long seen = newest == null ? 0 : newest.version();
    if (acknowledged != null && seen < acknowledged.version) {
      fail(name + " saw " + History.describe(newest) + ", older than " + acknowledged);
    }
    if (newest != null) {
      String unknown = history.unknownRecord(key, newest);
      if (unknown != null) fail(name + " returned a record nobody wrote: " + unknown);
    }
  }

  // ---- after the faults ----

  private void heal() {
    trace.event("heal");
    cluster.network().heal();
    for (SimNode node : cluster.nodes()) {
      if (node.isUp()) node.mendDisk();
      else node.start();
    }
  }

  /** Runs until every hint is delivered (and every call that could add one has ended); false if that never came. */
  private boolean drainHints() {
    long healedAt = time.nowMillis();
    long callsEnded = healedAt + 2 * SimReplicas.TIMEOUT_MILLIS;
    boolean drained = time.runUntil(healedAt + DRAIN_MILLIS,
        () -> time.nowMillis() >= callsEnded && cluster.nodes().stream().allMatch(n -> n.pendingHints() == 0));
    trace.event("hints " + (drained ? "drained" : "not drained"));
    if (!drained) {
      StringBuilder pending = new StringBuilder();
      for (SimNode node : cluster.nodes()) pending.append(' ').append(node.address().id()).append('=').append(node.pendingHints());
      fail("hints not delivered within " + DRAIN_MILLIS + " ms of the heal; pending:" + pending);
    }
    return drained;
  }

  /**
   * Every record a replica stored, or a hint of which was kept for it, is at that replica now (or
   * superseded there): stored records were synced, and hints were synced and have drained.
   */
  private void checkOwedRecordsArrived() {
    history.owed().forEach((key, versions) -> versions.forEach((version, replicas) -> {
      for (String replica : replicas) {
        Entry held = cluster.node(NodeAddress.ofId(replica)).newest(key.getBytes(StandardCharsets.UTF_8));
        if (held == null || held.version() < version) {
          fail("after the hints drained, " + replica + " holds " + History.describe(held) + " of " + key + ", older than v" + version
              + ", which it stored or was hinted");
        }
      }
    }));
  }

  /** A write (or a delete, for one key in four) of every key after the heal: each must succeed in time. */
  private void writeEveryKey() {
    for (String key : keys) {
      SimNode node = cluster.nodes().get(random.nextInt(cluster.nodes().size()));
      String value = random.nextInt(4) == 0 ? null : key + "=" + history.writes().size();
      write(node, key, value, QUORUM, time.nowMillis() + REQUEST_DEADLINE_MILLIS);
    }
    time.runUntil(time.nowMillis() + REQUEST_DEADLINE_MILLIS + 2 * SimReplicas.TIMEOUT_MILLIS);
  }

  /** A read at ALL of every key after the heal: each must succeed in time, and read repair brings stale replicas up. */
  private void readEveryKeyAtAll() {
    for (String key : keys) {
      SimNode node = cluster.nodes().get(random.nextInt(cluster.nodes().size()));
      read(node, key, ALL, time.nowMillis() + REQUEST_DEADLINE_MILLIS);
    }
    time.runUntil(time.nowMillis() + REQUEST_DEADLINE_MILLIS + 2 * SimReplicas.TIMEOUT_MILLIS);
  }

  private void checkReplicasAgree() {
    for (String key : keys) {
      byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
      List<NodeAddress> replicas = cluster.nodes().getFirst().replicasOf(keyBytes, REPLICAS);
      Entry first = cluster.node(replicas.getFirst()).newest(keyBytes);
      History.Write acknowledged = history.newestAcknowledged(key, Long.MAX_VALUE, 1);
      for (NodeAddress replica : replicas) {
        Entry held = cluster.node(replica).newest(keyBytes);
        if (!sameRecord(first, held)) {
          fail(key + ": " + replicas.getFirst().id() + " holds " + History.describe(first) + " but " + replica.id() + " holds "
              + History.describe(held) + clashNote());
        }
        if (acknowledged != null && (held == null || held.version() < acknowledged.version)) {
          fail(key + ": " + replica.id() + " holds " + History.describe(held) + ", older than " + acknowledged);
        }
        String unknown = held == null ? null : history.unknownRecord(key, held);
        if (unknown != null) fail(key + ": " + replica.id() + " holds a record nobody wrote: " + unknown);
      }
    }
  }

  private String clashNote() {
    List<String> clashes = history.clashes();
    return clashes.isEmpty() ? "" : " (records sent with the same version: " + clashes + ")";
  }

  private static boolean sameRecord(@Nullable Entry a, @Nullable Entry b) {
    if (a == null || b == null) return a == b;
    return a.version() == b.version() && Arrays.equals(a.value(), b.value());
  }

  private void fail(String failure) {
    trace.event("FAILED " + failure);
    failures.add(failure);
  }

  private static String stackTop(Throwable e) {
    StringBuilder out = new StringBuilder();
    StackTraceElement[] frames = e.getStackTrace();
    for (int i = 0; i < Math.min(8, frames.length); i++) out.append("\n    at ").append(frames[i]);
    return out.toString();
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) return;
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) Files.delete(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
