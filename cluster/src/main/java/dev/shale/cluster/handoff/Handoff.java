package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.coordination.ReplicaSets;
import dev.shale.storage.Engine;
import dev.shale.storage.Env;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * What makes a node change safe for the data, on one node: the {@link ChangeListener} that
 * {@link MapChanges} drives from the cluster map. When a change starts, writes go to the old and
 * the new replicas (the map says so itself; on a fixed cluster, {@link ReplicaSets#begin}) and
 * this node pulls the ranges it gains ({@link RangePulls}), then tells the membership ({@link
 * ChangeProgress#received}). When the change is committed, requests follow the new placement
 * (the map's, or {@link ReplicaSets#commit}), this node drops its copies of the ranges it lost,
 * and the progress file goes.
 *
 * <p>Thread safe: the listener's calls return at once; the pulls run on one thread of the
 * handoff's own, one change at a time.
 */
public final class Handoff implements ChangeListener, AutoCloseable {
  private static final System.Logger LOG = System.getLogger(Handoff.class.getName());

  /**
   * The default {@code --stream-rate}: 8 MiB/s, a small share of what even a cloud disk writes,
   * so that live writes (which share the log and the compactions) keep their latency; a join of
   * a node that gains 100 GiB then takes under four hours.
   */
  public static final int DEFAULT_BYTES_PER_SECOND = 8 << 20;

  private final NodeAddress self;
  private final @Nullable ReplicaSets replicaSets; // null: requests follow the cluster map, not this seam
  private final Engine engine;
  private final PullSource pulls;
  private final Path directory;
  private final int bytesPerSecond;
  private final ChangeProgress received;
  private final Env env; // the node's: the pulls' clock and files, this class's thread
  private final ExecutorService thread;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile @Nullable HandoffProgress progress; // of the change being pulled, for status

  /**
   * @param replicaSets the targets of requests to move along with the change; null when they follow
   *     the cluster map, which itself says who is joining or leaving
   * @param directory where the progress of a pull is kept ({@code <data>/handoff})
   * @param bytesPerSecond the most key and value bytes a second the pulls write ({@code --stream-rate})
   */
  public Handoff(NodeAddress self, @Nullable ReplicaSets replicaSets, Engine engine, PullSource pulls, Path directory, int bytesPerSecond,
      ChangeProgress received, Env env) {
    if (bytesPerSecond < 1) throw new IllegalArgumentException("bytesPerSecond must be >= 1: " + bytesPerSecond);
    this.self = self;
    this.replicaSets = replicaSets;
    this.engine = engine;
    this.pulls = pulls;
    this.directory = directory;
    this.bytesPerSecond = bytesPerSecond;
    this.received = received;
    this.env = env;
    this.thread = env.newSingleThreadExecutor("shale-handoff");
  }

  @Override
  public void changeStarted(PlacementChange change) {
    if (replicaSets != null) replicaSets.begin(change);
    onThread(() -> receive(change));
  }

  @Override
  public void changeCommitted(PlacementChange change) {
    if (replicaSets != null) replicaSets.commit(change);
    onThread(() -> forget(change));
  }

  @Override
  public void noChangePending(List<NodeAddress> members) {
    onThread(() -> commitMissed(members));
  }

  /** Runs {@code work} on the handoff's thread, unless the node stops: its next start takes the change up. */
  private void onThread(Runnable work) {
    try {
      thread.execute(work);
    } catch (RejectedExecutionException stopped) {
      LOG.log(Level.INFO, "handoff: this node is stopping; the change is taken up at its next start");
    }
  }

  /** The ranges this node pulls in the pending change and how far each got; empty when none is. */
  public List<RangeProgress> progress() {
    HandoffProgress now = progress;
    return now == null ? List.of() : now.ranges();
  }

  private void receive(PlacementChange change) {
    if (closed.get()) return;
    List<PullUnit> units = change.pullsOf(self);
    HandoffProgress pulled;
    try {
      pulled = HandoffProgress.open(env.vfs(), directory, change, units.stream().map(PullUnit::name).toList());
    } catch (UncheckedIOException e) { // on this thread nobody else would hear of it
      LOG.log(Level.ERROR, () -> "handoff: cannot pull the ranges this node gains: " + e.getMessage());
      return;
    }
    progress = pulled;
    sayWhatIsLost(change, units);
    if (new RangePulls(change, self, units, pulls, engine, pulled, bytesPerSecond, closed::get, env).pullAll()) {
      LOG.log(Level.INFO, () -> "handoff: " + self + " holds every range it gains (" + pulled.ranges().size() + ")");
      received.received(self);
    }
  }

  /**
   * A node down for good (removed as dead) that was the only replica of ranges this node gains
   * (one copy per key) leaves nothing to pull them from: the pull ends empty ({@link RangePulls}
   * fails over to the other replicas, of which there are none), and the keys are lost. Said here,
   * once per change, rather than left to look like a pull that found no keys.
   */
  private static void sayWhatIsLost(PlacementChange change, List<PullUnit> units) {
    for (PullUnit unit : units) {
      NodeAddress replaced = unit.replaced();
      if (replaced == null || !change.down().contains(replaced) || !unit.otherReplicas().isEmpty()) continue;
      LOG.log(Level.ERROR, () -> "handoff: pull " + unit.name() + " has no copy left to pull from: " + replaced
          + " was the only replica of its ranges and is down (removed as dead); their keys are lost");
    }
  }

  /**
   * The cleanup of the change this node's progress file names, if it ended with {@code members}
   * (the file is deleted when a change is committed here, so one left names a change this node
   * did not hear the end of). A change that ended otherwise (the map moved on, or the map this
   * node serves with is older than the change) is left alone: its copies stay, taking room only.
   */
  private void commitMissed(List<NodeAddress> members) {
    if (closed.get()) return;
    PlacementChange missed;
    try {
      missed = HandoffProgress.storedChange(env.vfs(), directory);
    } catch (IOException e) {
      LOG.log(Level.WARNING, () -> "handoff: cannot read the progress of the last change: " + e.getMessage());
      return;
    }
    if (missed == null || !NodeIds.join(missed.after().topology().nodes()).equals(NodeIds.join(members))) return;
    LOG.log(Level.INFO, () -> "handoff: the change to " + NodeIds.join(members) + " ended while this node was down;"
        + " committing it here now");
    forget(missed);
  }

  /**
   * After the commit, and only then: drops this node's copies of the keys it replicated before
   * the change and does not after, locally and without tombstones ({@link Engine#dropKeys}).
   * Before the commit they are still a replica's copies that reads count on.
   */
  private void forget(PlacementChange change) {
    progress = null;
    if (!change.rangesLostBy(self).isEmpty() && !closed.get()) {
      try {
        engine.dropKeys(key -> change.rangeOf(key).losing().contains(self));
        LOG.log(Level.INFO, () -> "handoff: " + self + " dropped its copies of the ranges it no longer replicates");
      } catch (RuntimeException e) {
        // The copies stay: harmless to reads (no one asks this node for them), they only take room.
        LOG.log(Level.WARNING, () -> "handoff: cannot drop the ranges this node no longer replicates: " + e.getMessage());
      }
    }
    try {
      env.vfs().delete(directory.resolve("progress"));
    } catch (IOException e) {
      LOG.log(Level.WARNING, () -> "handoff: cannot delete the progress of a committed change: " + e.getMessage());
    }
  }

  /** Stops the pulls (they resume at the next start) and waits for the thread. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) return;
    thread.shutdown();
    try {
      if (!env.awaitTermination(thread, 5, TimeUnit.SECONDS)) LOG.log(Level.WARNING, "handoff: the pull thread did not stop within 5 s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
