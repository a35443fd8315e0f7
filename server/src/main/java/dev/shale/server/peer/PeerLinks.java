package dev.shale.server.peer;

import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Env;
import dev.shale.storage.SuppressForbidden;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * This node's connections to its peers: per peer, one {@link PeerLink} on every event loop of
 * the I/O group, opened at start and kept (docs/design.md, "Peer messaging"); a peer that joined
 * the cluster later gets its links on the first request sent to it (the cluster map decides who
 * is sent requests). A request is sent
 * on the link of the loop it comes from and answered on that loop; no thread waits for a peer.
 *
 * <p>Thread safe.
 */
public final class PeerLinks {
  // Per peer, per loop; a peer's entry, once there, is never replaced.
  private final Map<String, Map<EventExecutor, PeerLink>> links = new ConcurrentHashMap<>();
  private final Map<String, DownMark> downMarks = new ConcurrentHashMap<>();
  // Per peer, made with its links; read by every call to it.
  private final Map<String, PeerCallTimer> timers = new ConcurrentHashMap<>();
  private final Function<NodeAddress, PeerCallTimer> timerOf;
  private final EventLoopGroup group;
  private final PeerDialer dialer;
  private final long timeoutMillis;
  private final int maxCallsPerLoop;
  private final Env env;

  /**
   * @param peers the other nodes of the cluster
   * @param group the I/O event loops: requests are sent from them
   * @param timeoutMillis how long a request may take (--replica-timeout)
   * @param maxCallsPerPeer requests in flight or waiting to a peer, all loops together (--peer-queue)
   * @param env the node's: the clock of down marks, call timings and silent links
   */
  public PeerLinks(
      List<NodeAddress> peers, EventLoopGroup group, PeerDialer dialer, long timeoutMillis, int maxCallsPerPeer, Env env) {
    this(peers, group, dialer, timeoutMillis, maxCallsPerPeer, peer -> PeerCallTimer.NONE, env);
  }

  /** As above; {@code timerOf} gives the timer of the requests to a peer, asked once per peer. */
  public PeerLinks(
      List<NodeAddress> peers, EventLoopGroup group, PeerDialer dialer, long timeoutMillis, int maxCallsPerPeer,
      Function<NodeAddress, PeerCallTimer> timerOf, Env env) {
    this.env = env;
    this.timerOf = timerOf;
    int loops = 0;
    for (EventExecutor ignored : group) loops++;
    this.group = group;
    this.dialer = dialer;
    this.timeoutMillis = timeoutMillis;
    this.maxCallsPerLoop = Math.max(1, (maxCallsPerPeer + loops - 1) / loops);
    for (NodeAddress peer : peers) linksOf(peer);
  }

  /** {@code peer}'s links, made on first use; the down mark is made before the links that share it. */
  private Map<EventExecutor, PeerLink> linksOf(NodeAddress peer) {
    return links.computeIfAbsent(peer.id(), id -> {
      timers.put(id, timerOf.apply(peer)); // before the links: a call through them finds it
      DownMark down = downMarks.computeIfAbsent(id, ignored -> new DownMark(env::nanoTime));
      Map<EventExecutor, PeerLink> byLoop = new IdentityHashMap<>();
      for (EventExecutor executor : group) {
        byLoop.put(executor, new PeerLink(peer, (EventLoop) executor, dialer, down, timeoutMillis, maxCallsPerLoop, env::nanoTime));
      }
      return byLoop;
    });
  }

  /**
   * Greets every peer: opens every link's connection, and waits up to {@code timeoutMillis} for
   * those attempts to end (each handshake done or failed; a peer that is down fails at once, one
   * that does not answer takes the connect timeout). A node calls it as it starts, after it
   * listens and before its start returns: a peer takes the handshake as the sign this node is up
   * (its down mark of this node ends before it sends READY), so from the moment this returns,
   * every peer that answered uses this node at once, with no 504 "is down" for a restarted node.
   * Called off the event loops.
   */
  @SuppressForbidden(reason = "waits on Netty's handshake futures, the adapter's; the deadline is the Env's")
  public void greetAll(long timeoutMillis) {
    List<Future<@Nullable Future<Channel>>> greetings = new ArrayList<>();
    for (Map<EventExecutor, PeerLink> byLoop : links.values()) {
      for (PeerLink link : byLoop.values()) greetings.add(link.loop().submit(link::connectIfIdle));
    }
    long deadline = env.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    for (Future<@Nullable Future<Channel>> greeting : greetings) {
      if (!greeting.awaitUninterruptibly(Math.max(0, deadline - env.nanoTime()), TimeUnit.NANOSECONDS)) return;
      Future<Channel> attempt = greeting.getNow();
      if (attempt != null && !attempt.awaitUninterruptibly(Math.max(0, deadline - env.nanoTime()), TimeUnit.NANOSECONDS)) return;
    }
  }

  /**
   * Sends the request {@code request} makes of its id to {@code peer}; the future completes on
   * {@code loop} with the answer or a {@link PeerFailure}. {@code loop} is one of the group's,
   * usually the caller's own; a caller on another thread (a hint delivery) costs one hand-off.
   */
  public Future<PeerMessage.Answer> send(EventExecutor loop, NodeAddress peer, LongFunction<PeerMessage.Request> request) {
    return send(loop, peer, request, false);
  }

  /**
   * Sends the node's own background request ({@link PeerCall#isBackground}: a clock probe) to
   * {@code peer}, as {@link #send} does, but untimed by the peer's metrics, outside {@code
   * --peer-queue}, and without marking the peer down if no connection can be made for it.
   */
  public Future<PeerMessage.Answer> sendBackground(EventExecutor loop, NodeAddress peer, LongFunction<PeerMessage.Request> request) {
    return send(loop, peer, request, true);
  }

  private Future<PeerMessage.Answer> send(EventExecutor loop, NodeAddress peer, LongFunction<PeerMessage.Request> request,
      boolean background) {
    Promise<PeerMessage.Answer> promise = loop.newPromise();
    PeerLink link = linksOf(peer).get(loop);
    if (link == null) throw new IllegalArgumentException(loop + " is not an event loop of this node");
    PeerCallTimer timer = background ? PeerCallTimer.NONE : timers.getOrDefault(peer.id(), PeerCallTimer.NONE);
    PeerCall call = new PeerCall(request, promise, timer, background, env::nanoTime);
    if (loop.inEventLoop()) link.send(call);
    else execute(link, () -> link.send(call));
    return promise;
  }

  /**
   * {@code peerId} proved itself on a connection of its own to this node: it is up. Its down
   * mark ends, and links without a connection open one now.
   */
  public void peerAuthenticated(String peerId) {
    DownMark down = downMarks.get(peerId);
    Map<EventExecutor, PeerLink> byLoop = links.get(peerId);
    if (down == null || byLoop == null) return;
    down.cleared();
    for (PeerLink link : byLoop.values()) execute(link, link::connectIfIdle);
  }

  /** The back-off of {@code peer}'s down mark: 0 unless a connection attempt failed since it was last seen up. */
  long downBackoffMillis(NodeAddress peer) {
    DownMark down = downMarks.get(peer.id());
    return down == null ? 0 : down.backoffMillis();
  }

  /**
   * Per peer (by id), how many of its links have an open, authenticated connection now: one
   * link per event loop, so a peer that is fully connected counts as many as there are loops.
   */
  public Map<String, Integer> openConnections() {
    Map<String, Integer> open = new TreeMap<>();
    links.forEach((peerId, byLoop) -> {
      int n = 0;
      for (PeerLink link : byLoop.values()) if (link.isConnected()) n++;
      open.put(peerId, n);
    });
    return open;
  }

  /** Closes every connection; requests in flight fail. */
  public void close() {
    for (Map<EventExecutor, PeerLink> byLoop : links.values()) {
      for (PeerLink link : byLoop.values()) execute(link, link::close);
    }
  }

  private static void execute(PeerLink link, Runnable task) {
    try {
      link.loop().execute(task);
    } catch (RejectedExecutionException e) {
      // The loop is shutting down: so is everything it carried.
    }
  }
}
