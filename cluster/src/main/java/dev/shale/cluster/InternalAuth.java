package dev.shale.cluster;

import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * How the nodes of a cluster prove to each other that they are peers, so that no client can pose
 * as one: the proofs of the internode handshake, once per connection (docs/format.md,
 * "Internode protocol"; docs/design.md, "Internode authentication").
 *
 * <p>With a cluster secret each side of a handshake proves it holds the secret ({@link
 * HandshakeProofs}). On a trusted network ({@code --trusted-network}, no secret) the proofs are
 * empty and not checked: anyone who can reach the nodes is a peer. A node without a secret that
 * is not told it is on a trusted network (a single node) takes no peers.
 *
 * <p>Thread safe.
 */
public final class InternalAuth {
  /** Shortest secret accepted, in bytes: an HMAC key shorter than this is guessable. */
  public static final int MIN_SECRET_BYTES = 16;

  /** The internode handshake's mode byte: 0 with a cluster secret, 1 on a trusted network. */
  public static final int MODE_SECRET = 0;
  /** See {@link #MODE_SECRET}. */
  public static final int MODE_TRUSTED_NETWORK = 1;

  private static final byte[] NO_PROOF = new byte[0];

  private enum Mode { SECRET, TRUSTED_NETWORK, NONE }

  private final Mode mode;
  private final @Nullable HandshakeProofs proofs; // null unless SECRET
  private final @Nullable AdminSignatures adminSignatures; // null unless SECRET

  private InternalAuth(Mode mode, @Nullable HandshakeProofs proofs, @Nullable AdminSignatures adminSignatures) {
    this.mode = mode;
    this.proofs = proofs;
    this.adminSignatures = adminSignatures;
  }

  /**
   * Proves and checks with {@code secret}, the same on every node of the cluster; admin
   * signatures carry and are checked against {@code wallClockMillis} (the node's Env's).
   *
   * @throws IllegalArgumentException if the secret is shorter than {@link #MIN_SECRET_BYTES}
   */
  public static InternalAuth withSecret(byte[] secret, LongSupplier wallClockMillis) {
    if (secret.length < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException("the cluster secret must be at least " + MIN_SECRET_BYTES + " bytes, not " + secret.length);
    }
    return new InternalAuth(Mode.SECRET, new HandshakeProofs(secret), AdminSignatures.withSecret(secret, wallClockMillis));
  }

  /** No secret: whoever connects is a peer. */
  public static InternalAuth trustedNetwork() {
    return new InternalAuth(Mode.TRUSTED_NETWORK, null, null);
  }

  /** A node that takes no peers (a single node without a secret). */
  public static InternalAuth none() {
    return new InternalAuth(Mode.NONE, null, null);
  }

  /** Whether this node takes peers and connects to them (it has a secret or trusts the network). */
  public boolean takesPeers() {
    return mode != Mode.NONE;
  }

  /**
   * How this node checks admin requests ({@code /v0/admin/*}): signed with the cluster secret,
   * or null on a node without one, which takes them unsigned (docs/format.md, "Admin request
   * signatures"). One per node: it remembers the nonces it accepted.
   */
  public @Nullable AdminSignatures adminSignatures() {
    return adminSignatures;
  }

  /**
   * This node's mode in the internode handshake ({@link #MODE_SECRET} or
   * {@link #MODE_TRUSTED_NETWORK}; docs/format.md, "Internode protocol").
   *
   * @throws IllegalStateException on a node that takes no peers ({@link #takesPeers} is false)
   */
  public int handshakeMode() {
    return switch (mode) {
      case SECRET -> MODE_SECRET;
      case TRUSTED_NETWORK -> MODE_TRUSTED_NETWORK;
      case NONE -> throw new IllegalStateException("this node has no cluster secret and does not trust the network");
    };
  }

  /**
   * The server's proof in a handshake: HMAC("shale-peer-v1 server" || hello || serverNonce),
   * {@code hello} being the client's HELLO payload as sent; no bytes on a trusted network.
   */
  public byte[] serverProof(byte[] hello, byte[] serverNonce) {
    return proofs == null ? NO_PROOF : proofs.server(hello, serverNonce);
  }

  /** The client's proof in a handshake: HMAC("shale-peer-v1 client" || hello || serverNonce). */
  public byte[] clientProof(byte[] hello, byte[] serverNonce) {
    return proofs == null ? NO_PROOF : proofs.client(hello, serverNonce);
  }

  /** Whether {@code proof} is the server's for this handshake (always, on a trusted network). Constant-time. */
  public boolean isServerProof(byte[] hello, byte[] serverNonce, byte[] proof) {
    return proofs == null ? mode == Mode.TRUSTED_NETWORK : HandshakeProofs.matches(proofs.server(hello, serverNonce), proof);
  }

  /** Whether {@code proof} is the client's for this handshake (always, on a trusted network). Constant-time. */
  public boolean isClientProof(byte[] hello, byte[] serverNonce, byte[] proof) {
    return proofs == null ? mode == Mode.TRUSTED_NETWORK : HandshakeProofs.matches(proofs.client(hello, serverNonce), proof);
  }
}
