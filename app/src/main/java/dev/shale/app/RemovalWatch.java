package dev.shale.app;

import dev.shale.app.membership.RaftMembership;
import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.server.tls.NodeTls;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * How a member learns that it was removed while it was down (issue 32: `shale nodes remove --dead`,
 * then the node restarted on its old data): its Raft log cannot tell it, as the group it was
 * removed from sends it nothing, but every member refuses its handshake. On such a refusal this
 * asks that member for its cluster map (the signed admin call `--join` makes); a newer map without
 * this node is taken as this node's ({@link RaftMembership#assume}), so it answers clients 503
 * and says "removed" in /v0/status (Cluster.removal), and {@code onRemoved} runs once (the node
 * stops delivering hints, which no member would take from it).
 *
 * <p>At most one map is asked for at a time, and at most one every {@link #INTERVAL_MILLIS}: a
 * refusal for another reason (a member that has not applied this node's join yet) costs one call.
 *
 * <p>Thread safe; {@link #refusedBy} never blocks (it is called on event loops).
 */
final class RemovalWatch implements AutoCloseable {
  static final long INTERVAL_MILLIS = 10_000;
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
  private static final System.Logger LOG = System.getLogger(RemovalWatch.class.getName());

  private final NodeAddress self;
  private final RaftMembership membership;
  private final @Nullable AdminSignatures signatures;
  private final @Nullable NodeTls tls; // with TLS between the nodes: the node's certificate in force
  private final Runnable onRemoved;
  private final ExecutorService calls = Executors.newSingleThreadExecutor(r -> {
    Thread thread = new Thread(r, "shale-removal-watch");
    thread.setDaemon(true);
    return thread;
  });
  private final AtomicBoolean asking = new AtomicBoolean();
  private final AtomicBoolean removed = new AtomicBoolean();
  private final AtomicLong lastAskedNanos = new AtomicLong(System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS));

  RemovalWatch(NodeAddress self, RaftMembership membership, @Nullable AdminSignatures signatures, @Nullable NodeTls tls,
      Runnable onRemoved) {
    this.self = self;
    this.membership = membership;
    this.signatures = signatures;
    this.tls = tls;
    this.onRemoved = onRemoved;
  }

  /** {@code member} refused this node's handshake: asks it for its map, unless one was asked for lately. */
  void refusedBy(NodeAddress member) {
    long now = System.nanoTime();
    long last = lastAskedNanos.get();
    if (removed.get() || now - last < TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS)) return;
    if (!lastAskedNanos.compareAndSet(last, now) || !asking.compareAndSet(false, true)) return;
    try {
      calls.execute(() -> {
        try {
          check(member);
        } finally {
          asking.set(false);
        }
      });
    } catch (RejectedExecutionException e) {
      asking.set(false); // closed
    }
  }

  private void check(NodeAddress member) {
    ClusterMap theirs;
    try {
      theirs = new TopologyCalls(new AdminClient(member, tls == null ? null : tls.peerHttps(), signatures, CALL_TIMEOUT, null)).map();
    } catch (RuntimeException e) { // AdminCallException: the member said no or could not be reached
      LOG.log(Level.DEBUG, () -> "asked " + member + " for its cluster map after it refused this node: " + e.getMessage());
      return;
    }
    ClusterMap ours = membership.current();
    boolean dropsThisNode = ours.member(self).isPresent() && !theirs.isEmpty() && theirs.member(self).isEmpty();
    if (!dropsThisNode || theirs.version() <= ours.version() || !removed.compareAndSet(false, true)) return;
    membership.assume(theirs);
    LOG.log(Level.WARNING, "this node (" + self + ") was removed from the cluster: " + member + " has cluster map version "
        + theirs.version() + " (this node had " + ours.version() + "), whose members are " + theirs.addresses()
        + "; it serves no client (503) and delivers no hints. Stop it, or delete its data and start it with --join");
    onRemoved.run();
  }

  @Override
  public void close() {
    calls.shutdownNow();
  }
}
