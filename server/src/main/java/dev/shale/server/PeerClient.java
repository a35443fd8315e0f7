package dev.shale.server;

import dev.shale.cluster.NodeAddress;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.pool.AbstractChannelPoolHandler;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.FixedChannelPool;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.Future;
import java.net.ConnectException;
import java.util.concurrent.TimeUnit;

/**
 * The connections to one peer: a pool of at most {@code maxConnections} keep-alive connections,
 * each carrying one request at a time, and at most {@code maxPending} requests waiting for one.
 * So a slow peer holds a bounded number of requests, and past them its keys get 503 at once.
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
  private final FixedChannelPool pool;
  // System.nanoTime() until which the peer is taken as down; 0 when it is not.
  private volatile long downUntilNanos;

  PeerClient(NodeAddress peer, Bootstrap bootstrap, int maxConnections, int maxPending, int maxAnswerBytes) {
    this.peer = peer;
    Bootstrap forPeer = bootstrap.clone().remoteAddress(peer.host(), peer.port());
    this.pool = new FixedChannelPool(forPeer, new AbstractChannelPoolHandler() {
      @Override
      public void channelCreated(Channel channel) {
        channel.pipeline()
            .addLast("idle", new IdleStateHandler(0, 0, IDLE_CLOSE_MILLIS, TimeUnit.MILLISECONDS))
            .addLast("http", new HttpClientCodec())
            .addLast("aggregator", new HttpObjectAggregator(maxAnswerBytes + ANSWER_SLACK_BYTES))
            .addLast("answer", new PeerResponseHandler(pool()));
      }
    }, ChannelHealthChecker.ACTIVE, null, -1, maxConnections, maxPending, true, true);
  }

  private FixedChannelPool pool() {
    return pool;
  }

  NodeAddress peer() {
    return peer;
  }

  /** Sends {@code call}'s request to the peer over a pooled connection. */
  void send(ForwardCall call) {
    long downUntil = downUntilNanos;
    if (downUntil != 0 && System.nanoTime() - downUntil < 0) {
      call.fail(ForwardFailure.unavailable(peer + " is down (it refused a connection less than "
          + DOWN_MILLIS + " ms ago); retry later"));
      return;
    }
    Future<Channel> acquired = pool.acquire();
    acquired.addListener(f -> onAcquired(acquired, call));
  }

  private void onAcquired(Future<Channel> acquired, ForwardCall call) {
    if (!acquired.isSuccess()) {
      call.fail(acquireFailure(acquired.cause()));
      return;
    }
    downUntilNanos = 0;
    Channel channel = acquired.getNow();
    channel.eventLoop().execute(() -> {
      PeerResponseHandler handler = channel.pipeline().get(PeerResponseHandler.class);
      if (handler == null || !channel.isActive()) { // closed between the health check and now
        pool.release(channel);
        call.fail(ForwardFailure.unavailable("the connection to " + peer + " closed before the request was sent"));
        return;
      }
      handler.send(channel.pipeline().context(handler), call);
    });
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
  Future<Void> closeAsync() {
    return pool.closeAsync();
  }
}
