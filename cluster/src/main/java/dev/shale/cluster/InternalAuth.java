package dev.shale.cluster;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Marks and checks requests between nodes, so that no client can pose as a peer.
 *
 * <p>A peer's request carries the header {@value #HEADER}. With a cluster secret its value is
 * {@code v1 <millis> <mac>}: the sender's wall-clock time and HMAC-SHA256, keyed by the secret,
 * over {@code "v1\n" + method + "\n" + target + "\n" + millis} (target: the path and raw query
 * as sent), base64url without padding. A receiver accepts it only if the MAC matches and the
 * time is within {@link #MAX_SKEW_MILLIS} of its own clock, which limits a captured request's
 * replay to that window. The body is not covered: a man in the middle could change a PUT's
 * value, which only TLS between the nodes would prevent (not here yet).
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
  /** How far a signed request's time may be from the receiver's clock, either way. */
  public static final long MAX_SKEW_MILLIS = 30_000;

  private static final String VERSION = "v1";
  private static final String TRUSTED = "trusted";
  private static final String ALGORITHM = "HmacSHA256";
  /** Shortest secret accepted, in bytes: an HMAC key shorter than this is guessable. */
  public static final int MIN_SECRET_BYTES = 16;

  private enum Mode { SECRET, TRUSTED_NETWORK, NONE }

  private final Mode mode;
  // Mac instances are not thread safe; event loops each get their own. Null unless SECRET.
  private final @Nullable ThreadLocal<Mac> macs;

  private InternalAuth(Mode mode, byte @Nullable [] secret) {
    this.mode = mode;
    if (secret == null) {
      this.macs = null;
    } else {
      SecretKeySpec key = new SecretKeySpec(secret, ALGORITHM);
      this.macs = ThreadLocal.withInitial(() -> newMac(key));
    }
  }

  /**
   * Signs and checks with {@code secret}.
   *
   * @throws IllegalArgumentException if the secret is shorter than {@link #MIN_SECRET_BYTES}
   */
  public static InternalAuth withSecret(byte[] secret) {
    if (secret.length < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException("the cluster secret must be at least " + MIN_SECRET_BYTES + " bytes, not " + secret.length);
    }
    return new InternalAuth(Mode.SECRET, secret.clone());
  }

  /** No secret: every request marked internal is taken as one. */
  public static InternalAuth trustedNetwork() {
    return new InternalAuth(Mode.TRUSTED_NETWORK, null);
  }

  /** A node that takes no internal requests (a single node without a secret). */
  public static InternalAuth none() {
    return new InternalAuth(Mode.NONE, null);
  }

  /** Whether this node may send internal requests (it has a secret or trusts the network). */
  public boolean canSign() {
    return mode != Mode.NONE;
  }

  /**
   * The {@value #HEADER} value for a request of {@code method} to {@code target} (path and
   * raw query) sent at {@code nowMillis}.
   */
  public String sign(String method, String target, long nowMillis) {
    return switch (mode) {
      case SECRET -> VERSION + " " + nowMillis + " " + mac(method, target, nowMillis);
      case TRUSTED_NETWORK -> TRUSTED;
      case NONE -> throw new IllegalStateException("this node has no cluster secret and does not trust the network");
    };
  }

  /**
   * Why a request marked internal with {@code header} must be refused, or empty if it is a
   * genuine request of a peer.
   */
  public Optional<String> refusal(String method, String target, String header, long nowMillis) {
    return switch (mode) {
      case TRUSTED_NETWORK -> Optional.empty();
      case NONE -> Optional.of("this node is not part of a cluster that takes internal requests");
      case SECRET -> checkSigned(method, target, header, nowMillis);
    };
  }

  private Optional<String> checkSigned(String method, String target, String header, long nowMillis) {
    String[] parts = header.split(" ", -1);
    if (parts.length != 3 || !parts[0].equals(VERSION)) {
      return Optional.of(HEADER + " is not '" + VERSION + " <millis> <mac>'");
    }
    long sentMillis;
    try {
      sentMillis = Long.parseLong(parts[1]);
    } catch (NumberFormatException e) {
      return Optional.of(HEADER + " has no valid time: '" + parts[1] + "'");
    }
    byte[] expected = mac(method, target, sentMillis).getBytes(StandardCharsets.US_ASCII);
    if (!MessageDigest.isEqual(expected, parts[2].getBytes(StandardCharsets.US_ASCII))) {
      return Optional.of(HEADER + " signature does not match (wrong cluster secret, or a forged request)");
    }
    // Checked after the MAC, so the skew an attacker learns about is only that of genuine requests.
    long skewMillis = Math.abs(nowMillis - sentMillis);
    if (skewMillis > MAX_SKEW_MILLIS) {
      return Optional.of(HEADER + " is stale: sent " + skewMillis + " ms from this node's clock (at most "
          + MAX_SKEW_MILLIS + " ms; are the nodes' clocks in sync?)");
    }
    return Optional.empty();
  }

  private String mac(String method, String target, long millis) {
    Mac mac = Objects.requireNonNull(macs, "only a node with a secret computes a MAC").get();
    String signed = VERSION + "\n" + method + "\n" + target + "\n" + millis;
    byte[] tag = mac.doFinal(signed.getBytes(StandardCharsets.UTF_8));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(tag);
  }

  private static Mac newMac(SecretKeySpec key) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 is not available in this JDK", e);
    }
  }
}
