package dev.shale.server.peer;

import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Membership;
import dev.shale.server.tls.NodeTls;
import io.netty.channel.Channel;
import java.security.SecureRandom;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What both ends of a handshake know of this node (docs/format.md, "Internode protocol",
 * "Handshake"): its id, its cluster map, its mode and secret; the HELLO it sends and the checks a
 * HELLO it receives must pass.
 *
 * <p>Thread safe.
 */
final class Handshakes {
  /** The protocol this build speaks. A change to any frame is a new version. */
  // 2: HELLO carries the cluster map version; the repair requests (TREE, DIGESTS, LEAVES);
  // 3: the handoff filter on SCAN; 4: CLOCK_ASK and CLOCK (clock offsets), FAILED 5
  static final int PROTOCOL_VERSION = 4;
  /** How long a handshake may take, either side, before the connection is closed. */
  static final long TIMEOUT_MILLIS = 10_000;
  static final int NONCE_BYTES = 32;

  private final NodeAddress self;
  private final Membership membership;
  private final InternalAuth auth;
  private final @Nullable NodeTls tls; // null: connections between nodes in clear
  private final SecureRandom random = new SecureRandom();
  // Told of every peer that refused this node's HELLO (a REFUSED frame); set once the node runs.
  private volatile Consumer<NodeAddress> refusedBy = peer -> {};

  Handshakes(NodeAddress self, Membership membership, InternalAuth auth, @Nullable NodeTls tls) {
    this.self = self;
    this.membership = membership;
    this.auth = auth;
    this.tls = tls;
  }

  /** The node's TLS, whose cluster CA every peer connection runs under; null: connections between nodes in clear. */
  @Nullable NodeTls tls() {
    return tls;
  }

  /**
   * Why the connection {@code channel}, whose HELLO names {@code sender}, may not be a peer's
   * under this node's TLS, or null (always null for a node without TLS between nodes). Checked
   * before the HELLO itself: a stranger learns nothing of the cluster map.
   */
  @Nullable String tlsRefusal(Channel channel, String sender) {
    if (tls == null) return null;
    String host;
    try {
      host = NodeAddress.ofId(sender).host();
    } catch (IllegalArgumentException e) {
      return "sender '" + sender + "' is not a node id (host:port)";
    }
    return tls.peerRefusal(channel, host);
  }

  InternalAuth auth() {
    return auth;
  }

  /** From now on tells {@code listener} of every peer that refuses this node's HELLO. */
  void onRefused(Consumer<NodeAddress> listener) {
    refusedBy = listener;
  }

  /** {@code peer} answered this node's HELLO with REFUSED. */
  void refusedBy(NodeAddress peer) {
    refusedBy.accept(peer);
  }

  String self() {
    return self.id();
  }

  /** A HELLO to {@code receiver} with a fresh nonce and the version of this node's map. */
  PeerMessage.Hello hello(NodeAddress receiver) {
    return Frames.hello(PROTOCOL_VERSION, auth.handshakeMode(), self(), receiver.id(), membership.current().version(), nonce());
  }

  byte[] nonce() {
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    return nonce;
  }

  /** Why {@code hello} is refused, or null: the checks in the order the format gives them. */
  @Nullable String refusal(PeerMessage.Hello hello) {
    if (!auth.takesPeers()) return "this node is not part of a cluster that takes peers";
    if (hello.protocolVersion() != PROTOCOL_VERSION) {
      return "protocol version " + hello.protocolVersion() + " is not this node's " + PROTOCOL_VERSION
          + " (the nodes of a cluster must all run the same build)";
    }
    if (hello.mode() != auth.handshakeMode()) {
      return "mode " + modeName(hello.mode()) + " is not this node's " + modeName(auth.handshakeMode())
          + " (every node needs the same --cluster-secret-file, or every node --trusted-network)";
    }
    if (!hello.receiver().equals(self())) {
      return "it is addressed to " + hello.receiver() + ", not to this node (" + self() + ")";
    }
    // Any map version: a node behind catches up through Raft. Membership is what counts.
    ClusterMap map = membership.current();
    boolean member = map.members().stream().anyMatch(m -> m.address().id().equals(hello.sender()));
    if (!member || hello.sender().equals(self())) {
      return "sender '" + hello.sender() + "' (at cluster map version " + hello.mapVersion()
          + ") is not another member of this node's cluster map (version " + map.version() + ": " + map.addresses() + ")";
    }
    if (hello.clientNonce().length != NONCE_BYTES) return "a client nonce of " + hello.clientNonce().length + " bytes, not " + NONCE_BYTES;
    return null;
  }

  private static String modeName(int mode) {
    return switch (mode) {
      case InternalAuth.MODE_SECRET -> "0 (a cluster secret)";
      case InternalAuth.MODE_TRUSTED_NETWORK -> "1 (--trusted-network)";
      default -> mode + " (unknown)";
    };
  }
}
