package dev.shale.sim;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.Consistency;
import dev.shale.cluster.HintLimits;
import dev.shale.cluster.HintStore;
import dev.shale.cluster.HintedHandoff;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.cluster.coordination.Coordinator;
import dev.shale.cluster.coordination.HintedWrites;
import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.cluster.coordination.ReplicaReply;
import dev.shale.cluster.coordination.ReplicationStats;
import dev.shale.storage.CrashVfs;
import dev.shale.storage.ErrorInjectingVfs;
import dev.shale.storage.VfsOp;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.SyncMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One simulated node across its lives: between a start and a crash it runs the real engine and
 * hint store (on a {@link CrashVfs}), the real {@link Coordinator}, and the real {@link
 * HintedHandoff} driven round by round in virtual time. A crash is a power loss: the node keeps
 * only what its filesystem had synced, and the next start opens the engine and the hint store on
 * that, replaying their logs as after a real one.
 *
 * <p>Each life has its own event loop ({@link #loop}): a task queued on a life that has ended
 * (a reply that comes back to a crashed coordinator) is dropped, as it is with the process.
 */
final class SimNode {
  /** How often, at most, hint delivery runs a round when it has nothing due sooner. */
  private static final long MAX_DELIVERY_PAUSE_MILLIS = 100;

  private final NodeAddress address;
  private final int index;
  private final NodeClock clock;
  private final Path home;
  private final SimCluster cluster;
  private final boolean dropsWrites;
  private final long diskSeed;
  private Path disk; // what the current (or next) life's filesystem starts from
  private int lives;
  private @Nullable Life life; // null while down

  /** Everything a life holds; gone with it. */
  private final class Life {
    final int number;
    final CrashVfs vfs;
    final ErrorInjectingVfs faults; // over vfs: the disk errors of this life
    boolean diskFailing; // faults were injected
    final Engine engine;
    final HintedHandoff handoff;
    final HintStore hints;
    final EngineReplica replica;
    final Coordinator coordinator;
    final Executor loop;

    Life(int number) throws IOException {
      this.number = number;
      this.vfs = new CrashVfs(disk, home.resolve("disk-" + number));
      this.faults = new ErrorInjectingVfs(vfs, diskSeed + number);
      SimEnv env = new SimEnv(cluster.time(), clock, faults);
      this.loop = task -> cluster.time().after(0, () -> {
        if (life == this) task.run();
      });
      this.engine = Engine.open(disk.resolve("data"), EngineOptions.defaults().withSyncMode(SyncMode.ALWAYS)
          .withBlockCacheBytes(1 << 20).withEnv(env));
      this.hints = HintStore.open(disk.resolve("hints"), HintLimits.DEFAULT, SyncMode.ALWAYS, env);
      HintedWrites hinted = new HintedWrites(hints);
      MissedWrites missed = new RecordedMissedWrites(hinted, cluster.history());
      this.replica = new EngineReplica(address.id(), engine, dropsWrites, cluster.history());
      SimReplicas replicas = new SimReplicas(SimNode.this, loop, cluster.time(), cluster.network(), cluster.history(), replica, missed);
      this.handoff = new HintedHandoff(hints, replicas::deliver, HintLimits.DEFAULT);
      handoff.startDriven();
      hinted.signal(handoff);
      this.coordinator = new Coordinator(new Placement(new Topology(cluster.addresses(), address)), replicas, engine.clock(), missed,
          new ReplicationStats(missed), Cluster.DEFAULT_READ_SPECULATION_MILLIS);
    }

    void deliverHints() {
      if (life != this) return;
      long nanos = handoff.deliverRound();
      long pause = Math.clamp(TimeUnit.NANOSECONDS.toMillis(nanos), 1, MAX_DELIVERY_PAUSE_MILLIS);
      cluster.time().after(pause, this::deliverHints);
    }

    /** Closes what the life opened; after a power loss each close fails, which is expected. */
    void close() {
      try {
        handoff.close(); // closes the hint store
      } catch (RuntimeException e) {
        // its filesystem lost power
      }
      try {
        engine.close();
      } catch (RuntimeException e) {
        // likewise
      }
    }
  }

  SimNode(SimCluster cluster, int index, NodeAddress address, NodeClock clock, Path home, long diskSeed, boolean dropsWrites) {
    this.cluster = cluster;
    this.diskSeed = diskSeed;
    this.index = index;
    this.address = address;
    this.clock = clock;
    this.home = home;
    this.disk = home.resolve("disk-0");
    this.dropsWrites = dropsWrites;
  }

  NodeAddress address() {
    return address;
  }

  int index() {
    return index;
  }

  NodeClock clock() {
    return clock;
  }

  boolean isUp() {
    return life != null;
  }

  /** Starts a new life on what the disk holds. */
  void start() {
    if (life != null) throw new IllegalStateException(address.id() + " is up already");
    try {
      Life started = new Life(++lives);
      life = started;
      cluster.trace().event(address.id() + " started, life " + started.number);
      started.deliverHints();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Loses power: the node is down, and its disk keeps only what was synced. */
  void crash() {
    Life dead = up();
    life = null;
    try {
      disk = dead.vfs.powerLoss();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    dead.close();
    cluster.trace().event(address.id() + " crashed, life " + dead.number);
  }

  /**
   * From now on each append and fsync of this life fails with EIO by {@code chance} (a failed
   * append leaves half its bytes, a torn tail); returns the life's number, for {@link #restartIfLife}.
   */
  int diskFails(double chance) {
    Life now = up();
    now.faults.inject(ErrorInjectingVfs.Fault.on("*", VfsOp.APPEND, VfsOp.SYNC).chance(chance));
    now.diskFailing = true;
    cluster.trace().event(address.id() + " disk fails by " + chance);
    return now.number;
  }

  /**
   * If life {@code number} is still the node's, its disk is mended and the node restarted (an
   * operator's restart: an engine whose log write failed refuses writes until reopened).
   */
  void restartIfLife(int number) {
    Life now = life;
    if (now == null || now.number != number) return;
    now.faults.clear();
    cluster.trace().event(address.id() + " disk mended, restarting");
    crash();
    start();
  }

  /** At the heal: a node whose disk is failing gets it mended, and is restarted. */
  void mendDisk() {
    Life now = life;
    if (now != null && now.diskFailing) restartIfLife(now.number);
  }

  /** Shuts the node down cleanly at the end of a run. */
  void stop() {
    Life last = life;
    life = null;
    if (last != null) last.close();
  }

  /** A peer's request arrives: served by this life's replica, or dropped if the node is down. */
  void serve(Function<EngineReplica, ReplicaReply> work, Consumer<ReplicaReply> reply) {
    Life now = life;
    if (now == null) {
      cluster.trace().event(address.id() + " is down: request dropped");
      return;
    }
    reply.accept(work.apply(now.replica));
  }

  SimNode peer(NodeAddress other) {
    return cluster.node(other);
  }

  /** Writes through this node's coordinator; the callbacks run on its loop. */
  void write(byte[] key, byte @Nullable [] value, Consistency consistency,
      Consumer<Coordinator.Outcome> done, Runnable allIn) {
    Life now = up();
    now.coordinator.write(now.loop, key, value, consistency, done, allIn);
  }

  /** Reads through this node's coordinator; the callback runs on its loop. */
  void read(byte[] key, Consistency consistency, Consumer<Coordinator.Outcome> done) {
    Life now = up();
    now.coordinator.read(now.loop, key, consistency, done, late -> {}, () -> {});
  }

  /** Hints kept and not yet delivered (0 while down: they wait on its disk). */
  long pendingHints() {
    Life now = life;
    return now == null ? 0 : now.hints.pendingHints();
  }

  /** This node's newest record of {@code key}, read from its engine, for the checker. */
  @Nullable Entry newest(byte[] key) {
    return up().replica.newest(key);
  }

  /** The replicas of {@code key} for {@code from} of them, by this node's placement. */
  List<NodeAddress> replicasOf(byte[] key, int from) {
    return new Placement(new Topology(cluster.addresses(), address)).preferenceList(key, from);
  }

  private Life up() {
    Life now = life;
    if (now == null) throw new IllegalStateException(address.id() + " is down");
    return now;
  }
}
