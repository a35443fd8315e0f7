package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.TokenBucket;
import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Pulls every range a node gains in a change into its engine, one range at a time.
 *
 * <ul>
 *   <li>Versions: each record is written with its own version ({@link Engine#write}), so a newer
 *       record this node already holds (a write that reached it as a pending replica) wins over
 *       an older one pulled, and a pulled tombstone hides older values, as with hints.
 *   <li>Throttle: the bytes written pass a token bucket of {@code bytesPerSecond}, which the
 *       pull waits out between batches; the source then waits for this node through TCP.
 *   <li>Resume: a range starts at its last key written ({@link HandoffProgress}); the key is
 *       written again, which the version rules make harmless.
 *   <li>Failover: a range may come from any node of its replica set before the change. When a
 *       pull fails (the source died, timed out, refused), the range goes on from its last key
 *       with the next node of the set; after {@link #ROUNDS} rounds over the set the pull gives
 *       up, and the next change notice (or a restart) starts it again.
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
  private final PullSource pulls;
  private final Engine engine;
  private final HandoffProgress progress;
  private final TokenBucket throttle;
  private final BooleanSupplier stopped;

  RangePulls(PlacementChange change, NodeAddress self, PullSource pulls, Engine engine, HandoffProgress progress,
      int bytesPerSecond, BooleanSupplier stopped) {
    this.change = change;
    this.self = self;
    this.pulls = pulls;
    this.engine = engine;
    this.progress = progress;
    this.throttle = new TokenBucket(bytesPerSecond, System.nanoTime());
    this.stopped = stopped;
  }

  /** Pulls every range not done yet; true once all are done, false if one gave up or the node stops. */
  boolean pullAll() {
    for (Set<NodeAddress> sources : change.sourcesOfRangesGainedBy(self)) {
      if (progress.of(sources).done()) continue;
      if (!pullRange(sources)) return false;
    }
    return true;
  }

  private boolean pullRange(Set<NodeAddress> sources) {
    List<NodeAddress> order = new ArrayList<>(sources);
    order.sort((a, b) -> a.id().compareTo(b.id()));
    GainedKeys keys = new GainedKeys(change, self, Set.of(sources));
    for (int attempt = 0; attempt < ROUNDS * order.size() && !stopped.getAsBoolean(); attempt++) {
      NodeAddress source = order.get(attempt % order.size());
      if (attempt > 0 && attempt % order.size() == 0) pause(BACKOFF_MILLIS * (attempt / order.size()));
      byte[] lastKey = progress.of(sources).lastKey();
      CompletableFuture<Void> pull = pulls.pull(source, keys, lastKey == null ? new byte[0] : lastKey, batch -> write(sources, batch));
      String failure = await(pull);
      if (failure == null) {
        try {
          progress.finish(sources);
        } catch (IOException e) {
          LOG.log(Level.ERROR, "handoff: cannot record range " + NodeIds.join(sources) + " as done: " + e.getMessage());
          return false;
        }
        LOG.log(Level.INFO, () -> "handoff: range " + NodeIds.join(sources) + " pulled, the last part from " + source + ": "
            + progress.of(sources).describe());
        return true;
      }
      LOG.log(Level.WARNING, () -> "handoff: pulling range " + NodeIds.join(sources) + " from " + source + " failed, "
          + "going on from another replica: " + failure);
    }
    if (stopped.getAsBoolean()) return false; // resumes at the next start
    LOG.log(Level.ERROR, () -> "handoff: gave up pulling range " + NodeIds.join(sources) + " after " + ROUNDS
        + " rounds over its replicas; it resumes at the next change notice or restart");
    return false;
  }

  /** Null once {@code pull} completed; else why not (also when this node stops meanwhile). */
  private @Nullable String await(CompletableFuture<Void> pull) {
    while (true) {
      try {
        pull.get(100, TimeUnit.MILLISECONDS);
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
  private void write(Set<NodeAddress> sources, List<Entry> batch) throws IOException {
    long bytes = 0;
    int records = 0;
    for (Entry entry : batch) {
      awaitTokens();
      if (stopped.getAsBoolean()) break;
      engine.write(entry.key(), entry.value(), entry.version());
      int size = entry.key().length + (entry.value() == null ? 0 : entry.value().length);
      throttle.take(size, System.nanoTime());
      bytes += size;
      records++;
    }
    if (records > 0) progress.advance(sources, batch.get(records - 1).key(), records, bytes);
    if (records < batch.size()) throw new IOException("this node is stopping");
  }

  private void awaitTokens() {
    long waitNanos;
    while ((waitNanos = throttle.nanosUntilAvailable(System.nanoTime())) > 0 && !stopped.getAsBoolean()) {
      LockSupport.parkNanos(Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(100)));
    }
  }

  private void pause(long millis) {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    long left;
    while ((left = until - System.nanoTime()) > 0 && !stopped.getAsBoolean()) LockSupport.parkNanos(left);
  }
}
