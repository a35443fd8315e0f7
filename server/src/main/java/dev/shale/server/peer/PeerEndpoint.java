package dev.shale.server.peer;

import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.Membership;
import dev.shale.server.tls.NodeTls;
import io.netty.channel.ChannelHandler;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The accepting side of this node's peer connections: who it is (for the handshake), how large a
 * frame may be, what serves an authenticated connection's requests, and whom to tell that a
 * peer proved itself (it is up: its down mark, if any, ends at once).
 *
 * <p>Thread safe.
 */
public final class PeerEndpoint {
  private final Handshakes handshakes;
  private final int maxFrameBytes;
  private final Function<String, ChannelHandler> requests;
  private final Consumer<String> authenticated;

  /**
   * @param self this node
   * @param membership the cluster map: a peer must be one of its members
   * @param auth the cluster secret (or trusted network) a peer must prove
   * @param tls the node's TLS, whose node certificate of the cluster CA a peer must present
   *     (docs/design.md, "TLS between nodes"); null: peers connect in clear
   * @param maxValueBytes this node's --max-value-size: frames may be that and a key long
   * @param requests makes the handler of an authenticated connection's requests, given the
   *     sender's node id; it is added last, after the frame codec
   * @param authenticated told the id of every peer whose connection to this node authenticated
   */
  public PeerEndpoint(
      NodeAddress self, Membership membership, InternalAuth auth, @Nullable NodeTls tls, int maxValueBytes,
      Function<String, ChannelHandler> requests, Consumer<String> authenticated) {
    this.handshakes = new Handshakes(self, membership, auth, tls);
    this.maxFrameBytes = Frames.maxFrameBytes(maxValueBytes);
    this.requests = requests;
    this.authenticated = authenticated;
  }

  Handshakes handshakes() {
    return handshakes;
  }

  int maxFrameBytes() {
    return maxFrameBytes;
  }

  ChannelHandler requestHandler(String sender) {
    return requests.apply(sender);
  }

  void peerAuthenticated(String sender) {
    authenticated.accept(sender);
  }
}
