package dev.shale.cluster;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * What the signature of a request between nodes covers besides who sends it to whom and when:
 * everything the receiver acts on. A replica write changes the store by its method (a value or a
 * tombstone), its target (the key), its version ({@link ReplicaProtocol#VERSION_HEADER}) and its
 * body (the value); a read or a scan answers by its method and target.
 *
 * @param method the HTTP method
 * @param target the request target as sent: path and raw query
 * @param version the raw value of {@link ReplicaProtocol#VERSION_HEADER}; null when the request
 *     has none
 * @param bodySha256 the SHA-256 digest of the body (of no bytes when there is none)
 */
public record SignedContent(String method, String target, @Nullable String version, byte[] bodySha256) {
  private static final byte[] NO_BYTES = new byte[0];
  // MessageDigest instances are not thread safe; each event loop and worker gets its own.
  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(SignedContent::newDigest);

  public SignedContent {
    if (bodySha256.length != 32) throw new IllegalArgumentException("a SHA-256 digest has 32 bytes, not " + bodySha256.length);
  }

  /** The content of a request with {@code body}; the digest reads the array in place. */
  public static SignedContent of(String method, String target, @Nullable String version, byte[] body) {
    return new SignedContent(method, target, version, SHA256.get().digest(body));
  }

  /** The content of a request without a body or version (a read, a scan). */
  public static SignedContent of(String method, String target) {
    return of(method, target, null, NO_BYTES);
  }

  /**
   * The bytes the MAC is computed over, after the signature's own fields. Lines, since none of
   * the parts can hold a line break (an HTTP request line or header value cannot); the version
   * line tells an absent header from any value.
   */
  byte[] canonical() {
    String versionLine = version == null ? "none" : "=" + version;
    String text = method + "\n" + target + "\n" + versionLine + "\n" + HexFormat.of().formatHex(bodySha256);
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available in this JDK", e);
    }
  }
}
