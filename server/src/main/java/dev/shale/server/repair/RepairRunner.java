package dev.shale.server.repair;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.repair.ClusterRepair;
import dev.shale.cluster.repair.RepairReport;
import dev.shale.cluster.repair.RepairThrottle;
import dev.shale.server.EntityService;
import dev.shale.server.coordination.ReplicaCalls;
import dev.shale.server.peer.PeerDialer;
import dev.shale.storage.CpuPriority;
import dev.shale.storage.Env;
import io.netty.channel.EventLoopGroup;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Runs a node's repairs (docs/design.md, "Anti-entropy repair") on a thread of their own, off
 * the event loops and the storage workers, whose waits for peers would otherwise hold them: the
 * background repair of this node's ranges every {@code --repair-interval}, and an operator's
 * repair of the whole cluster. One thread: one repair at a time. An operator's repair asked for
 * while another is queued joins it, so the queue holds at most one.
 *
 * <p>Thread safe.
 */
public final class RepairRunner implements AutoCloseable {
  /** Records a repair reads (digests) or copies per second at most. */
  public static final int RECORDS_PER_SECOND = 20_000;

  private static final System.Logger LOG = System.getLogger(RepairRunner.class.getName());

  private final ClusterRepair repair;
  private final ScheduledExecutorService thread;
  private final Env env;
  private @Nullable CompletableFuture<RepairReport> queued; // guarded by this

  RepairRunner(ClusterRepair repair, Env env) {
    this.repair = repair;
    this.env = env;
    // The thread from the Env; its schedule (repairEvery) runs on the JDK's clock, as Netty's timers do.
    this.thread = new ScheduledThreadPoolExecutor(1, env.threadFactory("shale-repair", CpuPriority.NORMAL));
  }

  /**
   * The repairs of a node of {@code cluster} (with peers), paced at {@link #RECORDS_PER_SECOND},
   * their clock and thread from {@code env}.
   */
  public static RepairRunner of(
      Cluster cluster, EntityService service, ReplicaCalls calls, PeerDialer dialer, EventLoopGroup loops, Env env) {
    int replicas = cluster.replicationFactor();
    RepairSides sides = new RepairSides(cluster.topology().self(), service, calls, dialer, loops, cluster.forwardTimeoutMillis(), env);
    return new RepairRunner(new ClusterRepair(cluster::livePlacement, replicas, sides,
        RepairThrottle.perSecond(RECORDS_PER_SECOND, env), ClusterRepair.LEAF_BITS, env), env);
  }

  /** Repairs this node's ranges every {@code intervalMillis} from now on (0: never). */
  public void repairEvery(long intervalMillis) {
    if (intervalMillis <= 0) return;
    thread.scheduleWithFixedDelay(() -> {
      try {
        repair.repairOwn();
      } catch (RuntimeException e) {
        LOG.log(Level.ERROR, "background repair failed", e);
      }
    }, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
  }

  /** Repairs every range of the cluster, after the repair under way if any; the report when done. */
  public synchronized CompletableFuture<RepairReport> repairAll() {
    if (queued != null) return queued;
    CompletableFuture<RepairReport> report = new CompletableFuture<>();
    try {
      thread.execute(this::runQueued);
    } catch (RejectedExecutionException e) {
      report.completeExceptionally(new IllegalStateException("the node is shutting down"));
      return report;
    }
    queued = report;
    return report;
  }

  private void runQueued() {
    CompletableFuture<RepairReport> report;
    synchronized (this) {
      report = queued;
      queued = null;
    }
    if (report == null) return;
    try {
      report.complete(repair.repairAll());
    } catch (RuntimeException e) {
      report.completeExceptionally(e);
    }
  }

  /** Repairs run to their end on this node. */
  public long runs() {
    return repair.runs();
  }

  /** Records this node's repairs copied between replicas. */
  public long recordsExchanged() {
    return repair.recordsExchanged();
  }

  /** Stops: a repair under way is interrupted (it ends at its next wait), a queued one fails. */
  @Override
  public void close() {
    thread.shutdownNow();
    synchronized (this) {
      if (queued != null) queued.completeExceptionally(new IllegalStateException("the node is shutting down"));
      queued = null;
    }
    try {
      env.awaitTermination(thread, 5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
