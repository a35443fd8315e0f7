package dev.shale.cluster.repair;

import dev.shale.cluster.TokenBucket;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The pace of a repair: at most {@code recordsPerSecond} records (digests read, records copied)
 * a second, so a repair's scans and writes leave the node's disk and network to live traffic.
 * One repair runs at a time on a node ({@link ClusterRepair}), hence one thread calls it.
 */
public final class RepairThrottle {
  private final @Nullable TokenBucket bucket; // null: no limit

  private RepairThrottle(@Nullable TokenBucket bucket) {
    this.bucket = bucket;
  }

  public static RepairThrottle perSecond(int recordsPerSecond) {
    return new RepairThrottle(new TokenBucket(recordsPerSecond, System.nanoTime()));
  }

  public static RepairThrottle unlimited() {
    return new RepairThrottle(null);
  }

  /**
   * Waits until one more record may go.
   *
   * @throws RepairFailedException if the thread is interrupted (the node stops)
   */
  synchronized void acquire() {
    if (bucket == null) return;
    long waitNanos;
    while ((waitNanos = bucket.nanosUntilAvailable(System.nanoTime())) > 0) {
      LockSupport.parkNanos(waitNanos);
      if (Thread.currentThread().isInterrupted()) throw new RepairFailedException("the repair was interrupted");
    }
    bucket.take(1, System.nanoTime());
  }
}
