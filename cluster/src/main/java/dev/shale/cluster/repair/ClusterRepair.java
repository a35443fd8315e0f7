package dev.shale.cluster.repair;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.storage.Env;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A node's anti-entropy repairs (docs/design.md, "Anti-entropy repair"): of the ranges it shares
 * with each peer (the background repair, every {@code --repair-interval}), or of every pair of
 * nodes of the cluster (an operator's {@code POST /v0/admin/repair}). Pairs are repaired one
 * after the other: once every pair of a key's replicas has been repaired, each holds the newest
 * record of the key any of them held at the start, since the one that held it keeps it and meets
 * every other.
 *
 * <p>One repair at a time per node: an operator's waits for a background one to end; a
 * background one is skipped while another runs. A pair that fails (a replica down) is reported
 * and the others go on.
 *
 * <p>Thread safe.
 */
public final class ClusterRepair {
  /** Leaves per tree: 2^16, 512 KiB per tree sent (docs/design.md, "Anti-entropy repair", for why). */
  public static final int LEAF_BITS = 16;
  /**
   * Sub-leaves per differing leaf: 2^3. At 2^16 leaves a million records put ~15 in a leaf; a
   * diverged key then costs 8 sub-leaf hashes (64 bytes) and the digests of its sub-leaf (~3 of
   * 24 bytes), against the digests of its whole leaf (~16 of 24 bytes) unrefined; 16 sub-leaves
   * would cost more in hashes (128 bytes) than they save in digests (docs/design.md).
   */
  static final int SUB_BITS = 3;

  private static final System.Logger LOG = System.getLogger(ClusterRepair.class.getName());

  private final Supplier<Placement> placement;
  private final int replicas;
  private final Function<NodeAddress, RepairSide> sides;
  private final RepairThrottle throttle;
  private final Env env; // times a repair
  private final int leafBits;
  private final ReentrantLock running = new ReentrantLock();
  private final AtomicLong runs = new AtomicLong();
  private final AtomicLong recordsExchanged = new AtomicLong();

  /**
   * @param placement the cluster's placement now (its topology names this node)
   * @param replicas copies of each key; a cluster of fewer nodes keeps one on each
   * @param sides a node's side of a repair: this node's engine, or a peer
   */
  public ClusterRepair(
      Supplier<Placement> placement, int replicas, Function<NodeAddress, RepairSide> sides, RepairThrottle throttle, int leafBits,
      Env env) {
    if (replicas < 1) throw new IllegalArgumentException("replicas must be >= 1: " + replicas);
    this.placement = placement;
    this.replicas = replicas;
    this.sides = sides;
    this.throttle = throttle;
    this.env = env;
    this.leafBits = RepairTree.checkedLeafBits(leafBits);
  }

  /** Repairs every range of every pair of nodes; waits for a repair under way to end first. */
  public RepairReport repairAll() {
    running.lock();
    try {
      Placement now = placement.get();
      return repair(now, selfFirst(now.topology().self(), now.topology().nodes()));
    } finally {
      running.unlock();
    }
  }

  /**
   * Every pair of {@code nodes}, this node's pairs first. A pair of two peers crosses the network
   * twice for each tree, digest and record (both sides are remote); this node's own pairs cross it
   * once, and by the time the peers' pairs come, this node has met and repaired each of them, so
   * those pairs usually find nothing but their trees (the cluster-wide divergence of one replica
   * is copied from this node, not between two peers).
   */
  static List<NodeAddress[]> selfFirst(NodeAddress self, List<NodeAddress> nodes) {
    List<NodeAddress[]> own = new ArrayList<>();
    List<NodeAddress[]> peers = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      for (int j = i + 1; j < nodes.size(); j++) {
        NodeAddress[] pair = {nodes.get(i), nodes.get(j)};
        (pair[0].equals(self) || pair[1].equals(self) ? own : peers).add(pair);
      }
    }
    own.addAll(peers);
    return own;
  }

  /** Repairs the ranges this node shares with each peer, unless a repair is under way (then nothing). */
  public RepairReport repairOwn() {
    if (!running.tryLock()) return RepairReport.NOTHING;
    try {
      Placement now = placement.get();
      NodeAddress self = now.topology().self();
      List<NodeAddress[]> pairs = now.topology().peers().stream().map(peer -> new NodeAddress[] {self, peer}).toList();
      return repair(now, pairs);
    } finally {
      running.unlock();
    }
  }

  /** Repairs run to their end on this node, failed pairs or not. */
  public long runs() {
    return runs.get();
  }

  /** Records this node's repairs copied from one replica to another. */
  public long recordsExchanged() {
    return recordsExchanged.get();
  }

  private RepairReport repair(Placement now, List<NodeAddress[]> pairs) {
    long startNanos = env.nanoTime();
    int copies = Math.min(replicas, now.topology().size());
    RepairReport report = RepairReport.NOTHING;
    if (copies >= 2) {
      for (NodeAddress[] pair : pairs) {
        if (Thread.currentThread().isInterrupted()) break; // the node stops
        report = report.plus(repairPair(new SharedRange(now, pair[0], pair[1], copies)));
      }
    }
    report = report.took((env.nanoTime() - startNanos) / 1_000_000);
    runs.incrementAndGet();
    RepairReport done = report;
    LOG.log(done.failures().isEmpty() ? Level.INFO : Level.WARNING, () -> "repair of " + done.rangesCompared() + " ranges: "
        + done.leavesDiffering() + " leaves differed, " + done.recordsExchanged() + " records copied, "
        + done.bytesExchanged() + " bytes exchanged in " + done.durationMillis() + " ms"
        + (done.failures().isEmpty() ? "" : "; failed: " + String.join("; ", done.failures())));
    return report;
  }

  private RepairReport repairPair(SharedRange range) {
    try {
      RepairReport report = new PairRepair(sides.apply(range.a()), sides.apply(range.b()), range, leafBits, SUB_BITS, throttle).run();
      recordsExchanged.addAndGet(report.recordsExchanged());
      // DEBUG: one line per range pair; the repair's total is at INFO.
      LOG.log(Level.DEBUG, () -> "repair of " + range + ": " + report.leavesDiffering() + " leaves differed, "
          + report.recordsExchanged() + " records copied, " + report.bytesExchanged() + " bytes exchanged");
      return report;
    } catch (RuntimeException e) {
      // One pair's failure (a replica down, a store failing) leaves the others to repair.
      return RepairReport.failed(range + ": " + e.getMessage());
    }
  }
}
