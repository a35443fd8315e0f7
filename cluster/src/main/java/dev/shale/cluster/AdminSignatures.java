package dev.shale.cluster;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Signs admin requests ({@code /v0/admin/*}) with the cluster secret, and checks them: the
 * scheme of docs/format.md, "Admin request signatures". The CLI signs ({@link #sign}); a node
 * with a secret checks every admin request before it routes it ({@link #refusal}), and keeps the
 * nonces it accepted so that a recorded request cannot be replayed.
 *
 * <p>Thread safe.
 */
public final class AdminSignatures {
  public static final String TIME_HEADER = "X-Shale-Admin-Time";
  public static final String NONCE_HEADER = "X-Shale-Admin-Nonce";
  public static final String SIGNATURE_HEADER = "X-Shale-Admin-Signature";
  /** How far a request's time may be from the checking node's clock, either way. */
  public static final long WINDOW_MILLIS = 60_000;
  /** Nonces kept at once; past it admin requests are refused until some expire. */
  static final int MAX_NONCES = 4_096;

  // Do not change: part of the signature scheme (a new scheme takes a new label).
  private static final String LABEL = "shale admin v1";
  private static final Pattern TIME = Pattern.compile("[0-9]{1,15}");
  private static final Pattern NONCE = Pattern.compile("[A-Za-z0-9_-]{16,64}");
  private static final Pattern SIGNATURE = Pattern.compile("[0-9a-f]{64}");
  private static final HexFormat HEX = HexFormat.of();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ThreadLocal<Mac> macs; // a Mac is not thread safe
  private final LongSupplier clockMillis;
  private final NonceCache nonces = new NonceCache(MAX_NONCES);

  /** The values of a signed request's three headers. */
  public record Signed(String time, String nonce, String signature) {}

  private AdminSignatures(byte[] secret, LongSupplier clockMillis) {
    if (secret.length < InternalAuth.MIN_SECRET_BYTES) {
      throw new IllegalArgumentException(
          "the cluster secret must be at least " + InternalAuth.MIN_SECRET_BYTES + " bytes, not " + secret.length);
    }
    byte[] derived = HmacSha256.newMac(HmacSha256.key(secret)).doFinal(LABEL.getBytes(StandardCharsets.US_ASCII));
    SecretKeySpec adminKey = HmacSha256.key(derived);
    this.macs = ThreadLocal.withInitial(() -> HmacSha256.newMac(adminKey));
    this.clockMillis = clockMillis;
  }

  /**
   * Signs and checks with {@code secret}, reading time (epoch milliseconds) from {@code clockMillis}
   * (the node's Env: {@code env::wallMillis}).
   *
   * @throws IllegalArgumentException if the secret is shorter than {@link InternalAuth#MIN_SECRET_BYTES}
   */
  public static AdminSignatures withSecret(byte[] secret, LongSupplier clockMillis) {
    return new AdminSignatures(secret, clockMillis);
  }

  /** Signs a request now, with a fresh nonce; {@code target} is its path and query as it is sent. */
  public Signed sign(String method, String target, byte[] body) {
    byte[] nonce = new byte[16];
    RANDOM.nextBytes(nonce);
    return sign(method, target, body, clockMillis.getAsLong(), HEX.formatHex(nonce));
  }

  /** Signs a request with the {@code timeMillis} and {@code nonce} given. */
  public Signed sign(String method, String target, byte[] body, long timeMillis, String nonce) {
    String time = Long.toString(timeMillis);
    return new Signed(time, nonce, HEX.formatHex(signature(method, target, time, nonce, body)));
  }

  /**
   * Why the request must be refused (403), in one line, or null if it is signed with the secret,
   * in time, and not a replay; then its nonce is remembered. {@code headers} gives every value of
   * a header by name.
   */
  public @Nullable String refusal(String method, String target, byte[] body, Function<String, List<String>> headers) {
    List<String> times = headers.apply(TIME_HEADER);
    List<String> nonceValues = headers.apply(NONCE_HEADER);
    List<String> signatures = headers.apply(SIGNATURE_HEADER);
    if (times.isEmpty() && nonceValues.isEmpty() && signatures.isEmpty()) {
      return "admin calls on this node must be signed with the cluster secret (headers " + TIME_HEADER + ", "
          + NONCE_HEADER + ", " + SIGNATURE_HEADER + "; the shale CLI signs them)";
    }
    String malformed = malformed(TIME_HEADER, times, TIME);
    if (malformed == null) malformed = malformed(NONCE_HEADER, nonceValues, NONCE);
    if (malformed == null) malformed = malformed(SIGNATURE_HEADER, signatures, SIGNATURE);
    if (malformed == null) malformed = notAsSent(target);
    if (malformed != null) return malformed;
    long now = clockMillis.getAsLong();
    long time = Long.parseLong(times.getFirst());
    if (Math.abs(now - time) > WINDOW_MILLIS) {
      return "the admin request was signed " + (now - time) + " ms from this node's time (at most " + WINDOW_MILLIS
          + " ms either way): check the clocks, and sign each request anew";
    }
    String nonce = nonceValues.getFirst();
    byte[] expected = signature(method, target, times.getFirst(), nonce, body);
    if (!MessageDigest.isEqual(expected, HEX.parseHex(signatures.getFirst()))) {
      return "the admin request's signature does not match: a different cluster secret, or a request changed after signing";
    }
    return switch (nonces.add(nonce, time + WINDOW_MILLIS, now)) {
      case ACCEPTED -> null;
      case REPLAYED -> "the admin request's nonce was used before: a replayed request";
      case FULL -> "more than " + MAX_NONCES + " admin requests within " + WINDOW_MILLIS + " ms; retry later";
    };
  }

  /**
   * Why {@code target} cannot be the request-target as sent, or null. As sent it is printable
   * ASCII (HTTP percent-encodes the rest); any other character came from a byte the signature's
   * ASCII encoding would turn into '?', so two targets would share one signature.
   */
  private static @Nullable String notAsSent(String target) {
    for (int i = 0; i < target.length(); i++) {
      char c = target.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        return String.format("the admin request's target holds U+%04X at index %d, not printable ASCII: percent-encode it", (int) c, i);
      }
    }
    return null;
  }

  private static @Nullable String malformed(String header, List<String> values, Pattern form) {
    if (values.size() != 1) return "an admin request needs exactly one " + header + " header, not " + values.size();
    if (!form.matcher(values.getFirst()).matches()) return header + " is malformed: must match " + form.pattern();
    return null;
  }

  private byte[] signature(String method, String target, String time, String nonce, byte[] body) {
    String toSign = String.join("\n", LABEL, method, target, time, nonce, HEX.formatHex(sha256(body)));
    return macs.get().doFinal(toSign.getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] sha256(byte[] body) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(body);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available in this JDK", e);
    }
  }
}
