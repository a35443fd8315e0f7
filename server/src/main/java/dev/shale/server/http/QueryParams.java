package dev.shale.server.http;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The other query parameters of an entity request ({@code ack}, {@code from}), and the encoding
 * of a key back into a query for a replica (the inverse of {@link IdDecoder}).
 */
public final class QueryParams {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private QueryParams() {}

  /**
   * The percent-decoded value of parameter {@code name} in {@code rawQuery} (null: no query),
   * or null when absent; parameters decode as the id does ({@link IdDecoder#find}).
   *
   * @throws InvalidRequestException when it is given twice or is malformed
   */
  public static @Nullable String value(@Nullable String rawQuery, String name) throws InvalidRequestException {
    if (rawQuery == null) return null;
    byte[] bytes = IdDecoder.find(rawQuery, name);
    return bytes == null ? null : new String(bytes, StandardCharsets.ISO_8859_1);
  }

  /**
   * {@code /v0/entity?id=} and {@code key} percent-encoded: every byte but the unreserved ones
   * (RFC 3986: letters, digits, {@code -._~}) as {@code %XX}, which {@link IdDecoder} decodes
   * back to exactly {@code key}.
   */
  public static String entityTarget(byte[] key) {
    return EntityHttpHandler.ENTITY_PATH + "?id=" + encode(key);
  }

  /**
   * {@code key} percent-encoded for a query: every byte but the unreserved ones (RFC 3986:
   * letters, digits, {@code -._~}) as {@code %XX}, which {@link IdDecoder} decodes back to
   * exactly {@code key}.
   */
  public static String encode(byte[] key) {
    StringBuilder out = new StringBuilder(key.length * 3);
    for (byte b : key) {
      int c = b & 0xff;
      if (isUnreserved(c)) {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }

  private static boolean isUnreserved(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '-' || c == '.' || c == '_' || c == '~';
  }
}
