package dev.shale.server.peer;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.ReplicaProtocol;
import dev.shale.cluster.SignedContent;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Sends internal requests to peers (the replica protocol, {@link ReplicaProtocol}),
 * asynchronously: the request goes out on a pooled connection of the event loops, and the answer
 * comes back as a future completed on a given event loop (the client connection's). No thread
 * waits for a peer.
 *
 * <p>Every request is marked internal ({@link InternalAuth#HEADER}), signed with the cluster
 * secret over what the peer acts on (method, target, version, a digest of the body) when it goes
 * out, so the peer serves it from its own store. It ends within {@code forwardTimeoutMillis}
 * (the replica timeout): with the peer's answer, or a {@link ForwardFailure} (503 if it was not
 * sent, 504 if it was).
 *
 * <p>Thread safe.
 */
public final class InternalClient {
  private final Cluster cluster;
  private final String fingerprint;
  private final Map<NodeAddress, PeerClient> peers = new HashMap<>(); // fixed after construction

  public InternalClient(Cluster cluster, EventLoopGroup ioGroup, Class<? extends Channel> channelType, int maxAnswerBytes) {
    this.cluster = cluster;
    this.fingerprint = cluster.topology().fingerprint();
    Bootstrap bootstrap = new Bootstrap()
        .group(ioGroup)
        .channel(channelType)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.SO_KEEPALIVE, true)
        // A connection attempt never outlasts the request it is for.
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(cluster.forwardTimeoutMillis(), Integer.MAX_VALUE));
    for (NodeAddress peer : cluster.topology().peers()) {
      peers.put(peer, new PeerClient(peer, bootstrap, cluster.maxConnectionsPerPeer(), cluster.maxPendingPerPeer(), maxAnswerBytes));
    }
  }

  /** No version header: see {@link #send}. */
  public static final long NO_VERSION = -1;

  /**
   * Sends {@code method target} (origin form) with {@code body} and, unless it is
   * {@link #NO_VERSION}, {@code version} in {@link ReplicaProtocol#VERSION_HEADER} to
   * {@code owner}; the future completes on {@code loop} with the peer's answer (which the
   * listener must release) or a {@link ForwardFailure}. {@code loop} is one of the group's event
   * loops, usually the caller's own: the request goes out on that loop's connections.
   */
  public Future<FullHttpResponse> send(
      EventExecutor loop, NodeAddress owner, HttpMethod method, String target, byte[] body, long version) {
    PeerClient peer = peers.get(owner);
    Promise<FullHttpResponse> promise = loop.newPromise();
    if (peer == null) {
      return promise.setFailure(ForwardFailure.unavailable(owner + " is not a peer of this node"));
    }
    String versionText = version == NO_VERSION ? null : Long.toString(version);
    Supplier<String> signature = () -> cluster.auth().sign(
        () -> SignedContent.of(method.name(), target, versionText, body), owner, System.currentTimeMillis());
    ForwardCall call = new ForwardCall(request(owner, method, target, body, versionText), signature, promise, owner.toString());
    long timeoutMillis = cluster.forwardTimeoutMillis();
    call.setTimeout(loop.schedule(() -> call.fail(call.wasSent()
        ? ForwardFailure.timedOut(owner + " did not answer within " + timeoutMillis + " ms")
        : ForwardFailure.unavailable("no connection to " + owner + " within " + timeoutMillis + " ms")),
        timeoutMillis, TimeUnit.MILLISECONDS));
    peer.send(loop, call);
    return promise;
  }

  // Without InternalAuth.HEADER: the call signs the request when it goes out (ForwardCall.takeRequest).
  private FullHttpRequest request(NodeAddress owner, HttpMethod method, String target, byte[] body, @Nullable String version) {
    FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, target, Unpooled.wrappedBuffer(body));
    HttpHeaders headers = request.headers();
    headers.set(HttpHeaderNames.HOST, owner.id());
    headers.setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    headers.set(InternalAuth.CLUSTER_HEADER, fingerprint);
    if (version != null) headers.set(ReplicaProtocol.VERSION_HEADER, version);
    return request;
  }

  /** Closes the connections to every peer. */
  public void close(long timeoutMillis) {
    List<Future<Void>> closing = peers.values().stream().flatMap(peer -> peer.closeAsync().stream()).toList();
    for (Future<Void> f : closing) f.awaitUninterruptibly(timeoutMillis);
  }
}
