package dev.shale.cluster;

import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Marks and checks requests between nodes, so that no client can pose as a peer, and no request
 * of a peer can be altered, replayed or taken by another node than the one it was for.
 *
 * <p>A peer's request carries the header {@value #HEADER}. With a cluster secret its value is a
 * {@link RequestSignature}: HMAC-SHA256 over the sender, the receiver, a sequence number, the
 * sender's wall-clock time and everything the receiver acts on ({@link SignedContent}: method,
 * target, version, a digest of the body). A receiver takes it only if it is for this node, from
 * a node of the list, genuine, within {@link #MAX_SKEW_MILLIS} of its own clock, and not seen
 * before (docs/design.md, "Internode authentication").
 *
 * <p>On a trusted network ({@code --trusted-network}, no secret) the header is
 * {@code trusted} and any value is taken as internal: anyone who can reach the nodes is
 * trusted. A node without a secret that is not told it is on a trusted network (a single node)
 * refuses every request marked internal.
 *
 * <p>Thread safe.
 */
public final class InternalAuth {
  /** The header that marks a request between nodes. */
  public static final String HEADER = "X-Shale-Internal";
  /** The header of a request between nodes that names the sender's node list ({@link Topology#fingerprint}). */
  public static final String CLUSTER_HEADER = "X-Shale-Cluster";
  /**
   * How far a signed request's time may be from the receiver's clock, either way: the longest a
   * receiver must remember a request to refuse its replay, and the clock skew between nodes that
   * their requests tolerate.
   */
  public static final long MAX_SKEW_MILLIS = 30_000;
  /** Shortest secret accepted, in bytes: an HMAC key shorter than this is guessable. */
  public static final int MIN_SECRET_BYTES = 16;

  /** The internode handshake's mode byte: 0 with a cluster secret, 1 on a trusted network. */
  public static final int MODE_SECRET = 0;
  /** See {@link #MODE_SECRET}. */
  public static final int MODE_TRUSTED_NETWORK = 1;

  private static final String TRUSTED = "trusted";
  private static final byte[] NO_PROOF = new byte[0];

  /** Whether a request marked internal is taken, and from whom. */
  public sealed interface Verdict {
    /** A genuine request of {@code sender}: a node id, or a description of an unsigned peer. */
    record Accepted(String sender) implements Verdict {}

    /** Not taken, for {@code reason} (one line). */
    record Refused(String reason) implements Verdict {}
  }

  private enum Mode { SECRET, TRUSTED_NETWORK, NONE }

  private final Mode mode;
  private final @Nullable RequestSignature signature; // null unless SECRET
  private final @Nullable HandshakeProofs proofs; // null unless SECRET

  private InternalAuth(Mode mode, @Nullable RequestSignature signature, @Nullable HandshakeProofs proofs) {
    this.mode = mode;
    this.signature = signature;
    this.proofs = proofs;
  }

  /**
   * Signs and checks with {@code secret}, as the node {@code topology.self()} of that cluster,
   * started now.
   *
   * @throws IllegalArgumentException if the secret is shorter than {@link #MIN_SECRET_BYTES}
   */
  public static InternalAuth withSecret(byte[] secret, Topology topology) {
    return withSecret(secret, topology, System.currentTimeMillis());
  }

  /** As {@link #withSecret(byte[], Topology)}, started at {@code startMillis} (tests). */
  static InternalAuth withSecret(byte[] secret, Topology topology, long startMillis) {
    if (secret.length < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException("the cluster secret must be at least " + MIN_SECRET_BYTES + " bytes, not " + secret.length);
    }
    return new InternalAuth(Mode.SECRET, new RequestSignature(secret.clone(), topology, startMillis), new HandshakeProofs(secret));
  }

  /** No secret: every request marked internal is taken as one. */
  public static InternalAuth trustedNetwork() {
    return new InternalAuth(Mode.TRUSTED_NETWORK, null, null);
  }

  /** A node that takes no internal requests (a single node without a secret). */
  public static InternalAuth none() {
    return new InternalAuth(Mode.NONE, null, null);
  }

  /** Whether this node may send internal requests (it has a secret or trusts the network). */
  public boolean canSign() {
    return mode != Mode.NONE;
  }

  /**
   * The {@value #HEADER} value for a request of {@code content} to {@code receiver}, sent at
   * {@code nowMillis}. Each call takes a new sequence number: sign a request once, when it goes
   * out. The content is computed only if the signature covers it (not on a trusted network).
   *
   * @throws IllegalArgumentException if {@code receiver} is not a node of this cluster
   */
  public String sign(Supplier<SignedContent> content, NodeAddress receiver, long nowMillis) {
    return switch (mode) {
      case SECRET -> Objects.requireNonNull(signature).sign(content.get(), receiver, nowMillis);
      case TRUSTED_NETWORK -> TRUSTED;
      case NONE -> throw new IllegalStateException("this node has no cluster secret and does not trust the network");
    };
  }

  /**
   * Whether a request of {@code content} marked internal with {@code header}, received at
   * {@code nowMillis}, is taken. The content is computed only if the header is well formed and
   * the signature covers it.
   */
  public Verdict verify(Supplier<SignedContent> content, String header, long nowMillis) {
    return switch (mode) {
      case TRUSTED_NETWORK -> new Verdict.Accepted("an unsigned peer (--trusted-network)");
      case NONE -> new Verdict.Refused("this node is not part of a cluster that takes internal requests");
      case SECRET -> Objects.requireNonNull(signature).verify(content, header, nowMillis);
    };
  }

  /**
   * This node's mode in the internode handshake ({@link #MODE_SECRET} or
   * {@link #MODE_TRUSTED_NETWORK}; docs/format.md, "Internode protocol").
   *
   * @throws IllegalStateException on a node that takes no peers ({@link #canSign} is false)
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
