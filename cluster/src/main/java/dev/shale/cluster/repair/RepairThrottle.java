package dev.shale.cluster.repair;

import dev.shale.cluster.TokenBucket;
import dev.shale.storage.Env;
import org.jspecify.annotations.Nullable;

/**
 * The pace of a repair: at most {@code recordsPerSecond} records (digests read, records copied)
 * a second, so a repair's scans and writes leave the node's disk and network to live traffic.
 * One repair runs at a time on a node ({@link ClusterRepair}), hence one thread calls it.
 */
public final class RepairThrottle {
  private final @Nullable TokenBucket bucket; // null: no limit
  private final Env env; // its monotonic clock paces the bucket; waits park through it

  private RepairThrottle(@Nullable TokenBucket bucket, Env env) {
    this.bucket = bucket;
    this.env = env;
  }

  public static RepairThrottle perSecond(int recordsPerSecond, Env env) {
    return new RepairThrottle(new TokenBucket(recordsPerSecond, env.nanoTime()), env);
  }

  public static RepairThrottle unlimited() {
    return new RepairThrottle(null, Env.real()); // never reads the clock nor waits
  }

  /**
   * Waits until one more record may go.
   *
   * @throws RepairFailedException if the thread is interrupted (the node stops)
   */
  synchronized void acquire() {
    if (bucket == null) return;
    long waitNanos;
    while ((waitNanos = bucket.nanosUntilAvailable(env.nanoTime())) > 0) {
      env.parkNanos(this, waitNanos);
      if (Thread.currentThread().isInterrupted()) throw new RepairFailedException("the repair was interrupted");
    }
    bucket.take(1, env.nanoTime());
  }
}
