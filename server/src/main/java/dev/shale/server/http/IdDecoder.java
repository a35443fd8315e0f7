package dev.shale.server.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Finds the {@code id} parameter (or another named parameter holding an id, such as a scan's
 * {@code start} and {@code end}) in a raw query string and decodes it into the key bytes.
 *
 * <p>The raw query is the text after {@code ?} exactly as it came off the wire, one char per
 * byte (Netty's request decoder maps each byte to the char of the same value, as ISO-8859-1
 * does). Parameters are separated by {@code &}; a name and a value by the first {@code =}.
 * Decoding follows form encoding: {@code %XX} is the byte 0xXX, {@code +} is a space, any
 * other char is its own byte. The decoded bytes must be well-formed UTF-8, and they are the key:
 * no normalization, so ids that differ in any byte are different keys.
 */
public final class IdDecoder {
  private static final String NAME = "id";

  private IdDecoder() {}

  /** The key named by {@code rawQuery} (null when the URI has none), or why there is none. */
  public static byte[] decodeId(@Nullable String rawQuery, int maxIdBytes) throws InvalidRequestException {
    byte[] key = decodeOptional(rawQuery, NAME, maxIdBytes);
    if (key == null) throw new InvalidRequestException("missing id parameter: use ?id=<id>");
    return key;
  }

  /**
   * The key that parameter {@code name} of {@code rawQuery} holds, checked as an id is (not
   * empty, at most {@code maxIdBytes}, UTF-8), or null when the query has no such parameter.
   */
  public static byte @Nullable [] decodeOptional(@Nullable String rawQuery, String name, int maxIdBytes) throws InvalidRequestException {
    // The query is at most a request line long (ServerInitializer), so decoding all of it is
    // cheap, and the reason can say how long the id really is.
    byte[] key = find(rawQuery == null ? "" : rawQuery, name);
    if (key == null) return null;
    if (key.length == 0) throw new InvalidRequestException("empty " + name + ": the " + name + " must be at least one byte");
    if (key.length > maxIdBytes) {
      throw new InvalidRequestException(
          name + " is " + key.length + " bytes of UTF-8; the limit is " + maxIdBytes);
    }
    if (!isWellFormedUtf8(key)) {
      throw new InvalidRequestException(name + " is not valid UTF-8 once percent-decoded");
    }
    return key;
  }

  /**
   * The percent-decoded bytes of parameter {@code name} in {@code query} (its name may be encoded
   * too), or null when absent.
   *
   * @throws InvalidRequestException when it is given twice or is malformed
   */
  static byte @Nullable [] find(String query, String name) throws InvalidRequestException {
    byte[] value = null;
    int start = 0;
    while (start < query.length()) {
      int end = indexOf(query, '&', start, query.length());
      int equals = indexOf(query, '=', start, end);
      if (isName(query, start, equals, name)) {
        if (value != null) throw new InvalidRequestException(name + " is given more than once");
        value = percentDecode(query, Math.min(equals + 1, end), end);
      }
      start = end + 1;
    }
    return value;
  }

  private static boolean isName(String query, int start, int end, String name) throws InvalidRequestException {
    if (end - start == name.length() && query.startsWith(name, start)) return true;
    // An encoded name ("%69d") is rare; decode it only when it could be one.
    if (end - start <= 3 * name.length() && hasEscapes(query, start, end)) {
      return name.equals(new String(percentDecode(query, start, end), StandardCharsets.ISO_8859_1));
    }
    return false;
  }

  /** The bytes that {@code query[start, end)} stands for in form encoding. */
  static byte[] percentDecode(String query, int start, int end) throws InvalidRequestException {
    byte[] out = new byte[decodedLength(query, start, end)];
    int n = 0;
    for (int i = start; i < end; i++) {
      char c = query.charAt(i);
      if (c == '%') {
        out[n++] = (byte) (hexDigit(query, i + 1) << 4 | hexDigit(query, i + 2));
        i += 2;
      } else {
        out[n++] = (byte) (c == '+' ? ' ' : c);
      }
    }
    return out;
  }

  /** Also checks the text: every {@code %} has two hex digits, every char fits in a byte. */
  private static int decodedLength(String query, int start, int end) throws InvalidRequestException {
    int length = 0;
    for (int i = start; i < end; i++) {
      char c = query.charAt(i);
      if (c == '%') {
        if (i + 2 >= end || hexValue(query.charAt(i + 1)) < 0 || hexValue(query.charAt(i + 2)) < 0) {
          throw new InvalidRequestException(
              "malformed percent-encoding at index " + i
                  + " of the query: '%' must be followed by two hex digits");
        }
        i += 2;
      } else if (c > 0xFF) {
        throw new InvalidRequestException(
            "query has a character beyond one byte at index " + i + "; percent-encode it");
      }
      length++;
    }
    return length;
  }

  private static int hexDigit(String s, int index) {
    return hexValue(s.charAt(index));
  }

  private static int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  private static boolean hasEscapes(String s, int start, int end) {
    return indexOf(s, '%', start, end) < end || indexOf(s, '+', start, end) < end;
  }

  /** The index of {@code c} in {@code s[start, end)}, or {@code end} if it is not there. */
  private static int indexOf(String s, char c, int start, int end) {
    int i = s.indexOf(c, start, end);
    return i < 0 ? end : i;
  }

  static boolean isWellFormedUtf8(byte[] bytes) {
    for (byte b : bytes) {
      if (b < 0) return decodesStrictly(bytes); // not all ASCII: let the JDK's decoder judge
    }
    return true;
  }

  private static boolean decodesStrictly(byte[] bytes) {
    try {
      // newDecoder() reports malformed input (overlong forms, surrogates, truncation).
      StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
