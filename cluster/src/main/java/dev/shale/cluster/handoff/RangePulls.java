package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.TokenBucket;
import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Pulls every range a node gains in a change into its engine, one {@link PullUnit} at a time.
 *
 * <ul>
 *   <li>Versions: each record is written with its own version ({@link Engine#write}), so a newer
 *       record this node already holds (a write that reached it as a pending replica) wins over
 *       an older one pulled, and a pulled tombstone hides older values, as with hints.
 *   <li>Throttle: the bytes written pass a token bucket of {@code bytesPerSecond}, which the
 *       pull waits out between batches; the source then waits for this node through TCP.
 *   <li>Resume: a pull starts after its last key written ({@link HandoffProgress}); the key is
 *       written again, which the version rules make harmless.
 *   <li>Failover: a pull that only adds copies may come from any node of its replica set: when
 *       one fails (died, timed out, refused), it goes on from its last key with the next. A pull
 *       that replaces a node comes from that node; when it fails {@link #ROUNDS} times, the pull
 *       goes on from every other replica of its ranges in turn, each from where the replaced
 *       node's stopped ({@link PullUnit}: only the union of their copies holds every write).
 *       Past {@link #ROUNDS} rounds over its sources a pull gives up, and the next change notice
 *       (or a restart) starts it again.
 * </ul>
 *
 * <p>Not thread safe: runs on the handoff's thread.
 */
final class RangePulls {
  private static final System.Logger LOG = System.getLogger(RangePulls.class.getName());
  static final int ROUNDS = 3;
  private static final long BACKOFF_MILLIS = 500;

  private final PlacementChange change;
  private final NodeAddress self;
  private final List<PullUnit> units; // change.pullsOf(self)
  private final PullSource pulls;
  private final Engine engine;
  private final HandoffProgress progress;
  private final TokenBucket throttle;
  private final BooleanSupplier stopped;
  private final Env env; // paces the throttle and the pauses

  /** @param units what {@code self} pulls in {@code change}: {@link PlacementChange#pullsOf}, whose names {@code progress} has */
  RangePulls(PlacementChange change, NodeAddress self, List<PullUnit> units, PullSource pulls, Engine engine, HandoffProgress progress,
      int bytesPerSecond, BooleanSupplier stopped, Env env) {
    this.change = change;
    this.self = self;
    this.units = units;
    this.pulls = pulls;
    this.engine = engine;
    this.progress = progress;
    this.env = env;
    this.throttle = new TokenBucket(bytesPerSecond, env.nanoTime());
    this.stopped = stopped;
  }

  /** Pulls every unit not done yet; true once all are done, false if one gave up or the node stops. */
  boolean pullAll() {
    for (PullUnit unit : units) {
      if (progress.of(unit.name()).done()) continue;
      boolean pulled = unit.replaced() == null ? pullOrGiveUp(unit.name(), unit, unit.sources()) : pullReplacing(unit);
      if (!pulled) return false;
      if (!finish(unit.name())) return false;
    }
    return true;
  }

  /**
   * From the replaced node; once it failed {@link #ROUNDS} times (or a failover began before a
   * restart), from each other replica of the unit's ranges, from the key it stopped at.
   */
  private boolean pullReplacing(PullUnit unit) {
    NodeAddress replaced = Objects.requireNonNull(unit.replaced());
    List<NodeAddress> others = unit.otherReplicas();
    // A node removed as dead is not tried at all: its ranges come from the others at once.
    boolean failedOver = change.down().contains(replaced)
        || others.stream().anyMatch(other -> progress.has(unit.fromOther(other)));
    if (!failedOver) {
      if (pull(unit.name(), unit, List.of(replaced))) return true;
      if (stopped.getAsBoolean()) return false;
      LOG.log(Level.WARNING, () -> "handoff: " + replaced + " cannot be reached; pulling the ranges it had from every other replica of"
          + " them (" + NodeIds.join(others) + "), from where it stopped");
    }
    byte[] stoppedAt = progress.of(unit.name()).lastKey();
    for (NodeAddress other : others) {
      String part = unit.fromOther(other);
      try {
        progress.addFrom(part, stoppedAt);
      } catch (IOException e) {
        LOG.log(Level.ERROR, "handoff: cannot record pull " + part + ": " + e.getMessage());
        return false;
      }
      if (progress.of(part).done()) continue;
      if (!pullOrGiveUp(part, unit, List.of(other)) || !finish(part)) return false;
    }
    return true;
  }

  /**
   * Pulls {@code unit}'s keys into progress entry {@code name}, from {@code sources} in turn,
   * {@link #ROUNDS} rounds; true once complete, false when every try failed or this node stops.
   */
  private boolean pull(String name, PullUnit unit, List<NodeAddress> sources) {
    GainedKeys keys = new GainedKeys(change, self, unit.ranges());
    for (int attempt = 0; attempt < ROUNDS * sources.size() && !stopped.getAsBoolean(); attempt++) {
      NodeAddress source = sources.get(attempt % sources.size());
      if (attempt > 0 && attempt % sources.size() == 0) pause(BACKOFF_MILLIS * (attempt / sources.size()));
      byte[] lastKey = progress.of(name).lastKey();
      CompletableFuture<Void> pull = pulls.pull(source, keys, lastKey == null ? new byte[0] : lastKey, batch -> write(name, batch));
      String failure = await(pull);
      if (failure == null) {
        LOG.log(Level.INFO, () -> "handoff: pull " + name + " complete, the last part from " + source + ": "
            + progress.of(name).describe());
        return true;
      }
      LOG.log(Level.WARNING, () -> "handoff: pull " + name + " from " + source + " failed: " + failure);
    }
    return false;
  }

  /** {@link #pull}, saying so when it gives up (not when this node stops: it resumes at the next start). */
  private boolean pullOrGiveUp(String name, PullUnit unit, List<NodeAddress> sources) {
    if (pull(name, unit, sources)) return true;
    if (!stopped.getAsBoolean()) {
      LOG.log(Level.ERROR, () -> "handoff: gave up pull " + name + " after " + ROUNDS + " rounds over " + NodeIds.join(sources)
          + "; it resumes at the next change notice or restart");
    }
    return false;
  }

  private boolean finish(String name) {
    try {
      progress.finish(name);
      return true;
    } catch (IOException e) {
      LOG.log(Level.ERROR, "handoff: cannot record pull " + name + " as done: " + e.getMessage());
      return false;
    }
  }

  /** Null once {@code pull} completed; else why not (also when this node stops meanwhile). */
  private @Nullable String await(CompletableFuture<Void> pull) {
    while (true) {
      try {
        env.get(pull, 100, TimeUnit.MILLISECONDS);
        return null;
      } catch (TimeoutException e) {
        if (stopped.getAsBoolean()) return "this node is stopping";
      } catch (ExecutionException e) {
        return String.valueOf(e.getCause() == null ? e : e.getCause().getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      }
    }
  }

  /** Writes {@code batch}, then counts it; a node that stops counts what it wrote and fails the pull. */
  private void write(String name, List<Entry> batch) throws IOException {
    long bytes = 0;
    int records = 0;
    for (Entry entry : batch) {
      awaitTokens();
      if (stopped.getAsBoolean()) break;
      engine.write(entry.key(), entry.value(), entry.version(), entry.expiresAtMillis());
      int size = entry.key().length + (entry.value() == null ? 0 : entry.value().length);
      throttle.take(size, env.nanoTime());
      bytes += size;
      records++;
    }
    if (records > 0) progress.advance(name, batch.get(records - 1).key(), records, bytes);
    if (records < batch.size()) throw new IOException("this node is stopping");
  }

  private void awaitTokens() {
    long waitNanos;
    while ((waitNanos = throttle.nanosUntilAvailable(env.nanoTime())) > 0 && !stopped.getAsBoolean()) {
      env.parkNanos(this, Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(100)));
    }
  }

  private void pause(long millis) {
    long until = env.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    long left;
    while ((left = until - env.nanoTime()) > 0 && !stopped.getAsBoolean()) env.parkNanos(this, left);
  }
}
