package dev.shale.server.peer;

import dev.shale.cluster.NodeAddress;
import dev.shale.server.Reasons;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.pool.AbstractChannelPoolHandler;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.FixedChannelPool;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.net.ConnectException;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The connections to one peer: on each event loop, a pool of at most {@code maxConnections /
 * loops} keep-alive connections (rounded up), each carrying one request at a time, and at most
 * {@code maxPending / loops} requests waiting for one. So a slow peer holds a bounded number of
 * requests, and past them its keys get 503 at once.
 *
 * <p>One pool per event loop, because a request is sent from the event loop of the client
 * connection it serves, and then everything about it stays on that thread: the acquire, the
 * write, the answer and the completion of its promise. With one pool for all loops, a replica
 * request crossed threads three times (to the pool's loop, to the connection's, back to the
 * client's); on a busy node the wake-ups those hand-offs cost were the coordinator's largest
 * cost (docs/perf/replication.md).
 *
 * <p>A circuit breaker: when a connection to the peer cannot be made (refused, unreachable),
 * the peer is taken as down for {@link #DOWN_MILLIS}, during which its keys get 503 without a
 * connection attempt (which, to a machine that does not answer, would take the connect timeout).
 * The first request after that tries again.
 *
 * <p>Thread safe.
 */
final class PeerClient {
  /** How long a peer that refused a connection is taken as down. */
  static final long DOWN_MILLIS = 1_000;
  /** Idle pooled connections are closed after this, before the peer's own idle timeout would. */
  static final long IDLE_CLOSE_MILLIS = 30_000;
  /** Room in an answer beyond the largest value: headers and the reason of an error. */
  private static final int ANSWER_SLACK_BYTES = 64 * 1024;

  private final NodeAddress peer;
  // One per event loop of the group, each running on its loop; fixed after construction.
  private final IdentityHashMap<EventExecutor, FixedChannelPool> pools = new IdentityHashMap<>();
  // System.nanoTime() until which the peer is taken as down; 0 when it is not.
  private volatile long downUntilNanos;

  /**
   * Pools on every loop of {@code bootstrap}'s group: requests to send must come from one of
   * them. {@code maxConnections} and {@code maxPending} are for the peer, all loops together.
   */
  PeerClient(NodeAddress peer, Bootstrap bootstrap, int maxConnections, int maxPending, int maxAnswerBytes) {
    this.peer = peer;
    EventLoopGroup group = bootstrap.config().group();
    int loops = 0;
    for (EventExecutor ignored : group) loops++;
    int connectionsPerLoop = ceilDiv(maxConnections, loops);
    int pendingPerLoop = ceilDiv(maxPending, loops);
    for (EventExecutor executor : group) {
      Bootstrap onLoop = bootstrap.clone((EventLoop) executor).remoteAddress(peer.host(), peer.port());
      pools.put(executor, pool(onLoop, connectionsPerLoop, pendingPerLoop, maxAnswerBytes));
    }
  }

  private static FixedChannelPool pool(Bootstrap onLoop, int maxConnections, int maxPending, int maxAnswerBytes) {
    FixedChannelPool[] self = new FixedChannelPool[1]; // the handler releases into its own pool
    self[0] = new FixedChannelPool(onLoop, new AbstractChannelPoolHandler() {
      @Override
      public void channelCreated(Channel channel) {
        channel.pipeline()
            .addLast("idle", new IdleStateHandler(0, 0, IDLE_CLOSE_MILLIS, TimeUnit.MILLISECONDS))
            .addLast("http", new HttpClientCodec())
            .addLast("aggregator", new HttpObjectAggregator(maxAnswerBytes + ANSWER_SLACK_BYTES))
            .addLast("answer", new PeerResponseHandler(self[0]));
      }
    }, ChannelHealthChecker.ACTIVE, null, -1, maxConnections, maxPending, true, true);
    return self[0];
  }

  private static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }

  NodeAddress peer() {
    return peer;
  }

  /**
   * Sends {@code call}'s request to the peer over a connection of {@code loop}'s pool.
   * {@code loop} is one of the group's; a caller on another thread (hint delivery) costs one
   * hand-off to it.
   */
  void send(EventExecutor loop, ForwardCall call) {
    long downUntil = downUntilNanos;
    if (downUntil != 0 && System.nanoTime() - downUntil < 0) {
      call.fail(ForwardFailure.unavailable(peer + " is down (it refused a connection less than "
          + DOWN_MILLIS + " ms ago); retry later"));
      return;
    }
    FixedChannelPool pool = pools.get(loop);
    if (pool == null) throw new IllegalArgumentException(loop + " is not an event loop of this client");
    Future<Channel> acquired = pool.acquire();
    acquired.addListener(f -> onAcquired(pool, acquired, call));
  }

  // On the pool's loop, which is also its connections' loop.
  private void onAcquired(FixedChannelPool pool, Future<Channel> acquired, ForwardCall call) {
    if (!acquired.isSuccess()) {
      call.fail(acquireFailure(acquired.cause()));
      return;
    }
    downUntilNanos = 0;
    Channel channel = acquired.getNow();
    PeerResponseHandler handler = channel.pipeline().get(PeerResponseHandler.class);
    if (handler == null || !channel.isActive()) { // closed between the health check and now
      pool.release(channel);
      call.fail(ForwardFailure.unavailable("the connection to " + peer + " closed before the request was sent"));
      return;
    }
    handler.send(channel.pipeline().context(handler), call);
  }

  private ForwardFailure acquireFailure(Throwable cause) {
    if (cause instanceof ConnectException) {
      downUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DOWN_MILLIS);
      return ForwardFailure.unavailable("cannot connect to " + peer + ": " + Reasons.oneLine(cause.getMessage()));
    }
    if (cause instanceof IllegalStateException) {
      // FixedChannelPool's "too many outstanding acquire operations" (or closed).
      return ForwardFailure.unavailable("too many requests are waiting for " + peer + "; retry later");
    }
    return ForwardFailure.unavailable("cannot reach " + peer + ": " + Reasons.oneLine(String.valueOf(cause)));
  }

  /** Closes every pooled connection; requests still waiting fail. */
  List<Future<Void>> closeAsync() {
    return pools.values().stream().map(FixedChannelPool::closeAsync).toList();
  }
}
