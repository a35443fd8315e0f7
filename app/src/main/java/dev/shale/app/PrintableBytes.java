package dev.shale.app;

import dev.shale.server.StatusBody;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.jspecify.annotations.Nullable;

/**
 * Keys and values, which are any bytes, as the offline tools print them: text a terminal shows as
 * it is, and JSON that loses nothing.
 *
 * <p>Text: UTF-8 as it is, but a backslash is {@code \\}, a newline {@code \n}, a tab
 * {@code \t}, and any other control character, or any byte of a sequence that is not UTF-8,
 * {@code \xNN}; so a printed key or value never spans lines or columns, and two different ones
 * never print alike. JSON: a string of the bytes' UTF-8 text when they are UTF-8, else the bytes
 * in base64 under the name with {@code Base64} appended.
 */
final class PrintableBytes {
  /** Print every byte. */
  static final int ALL = -1;

  private PrintableBytes() {}

  /** {@code bytes} as escaped text, the first {@code limit} of them ({@link #ALL}: all), and how many there were when cut. */
  static String text(byte[] bytes, int limit) {
    byte[] shown = cut(bytes, limit);
    String text = utf8(shown);
    StringBuilder out = new StringBuilder(shown.length + 8);
    if (text != null) {
      text.codePoints().forEach(c -> appendEscaped(out, c));
    } else {
      for (byte b : shown) {
        int u = b & 0xFF;
        if (u >= 0x80) out.append(String.format("\\x%02x", u));
        else appendEscaped(out, u);
      }
    }
    if (shown.length < bytes.length) out.append("...(").append(bytes.length).append(" bytes)");
    return out.toString();
  }

  /**
   * {@code "name": "<text>"} for UTF-8 bytes, else {@code "nameBase64": "<base64>"}; when cut to
   * {@code limit} bytes, {@code , "nameLength": <all bytes>} follows.
   */
  static String json(String name, byte[] bytes, int limit) {
    byte[] shown = cut(bytes, limit);
    String text = utf8(shown);
    String member = text != null
        ? StatusBody.quote(name) + ": " + StatusBody.quote(text)
        : StatusBody.quote(name + "Base64") + ": \"" + Base64.getEncoder().encodeToString(shown) + "\"";
    return shown.length < bytes.length ? member + ", " + StatusBody.quote(name + "Length") + ": " + bytes.length : member;
  }

  // The first limit bytes, backed off to the start of a UTF-8 sequence the cut would split.
  private static byte[] cut(byte[] bytes, int limit) {
    if (limit < 0 || bytes.length <= limit) return bytes;
    int end = limit; // bytes[end] is the first byte left out
    for (int back = 0; back < 3 && end > 0 && (bytes[end] & 0xC0) == 0x80; back++) end--;
    if ((bytes[end] & 0xC0) == 0x80) end = limit; // no UTF-8 sequence: cut where asked
    return Arrays.copyOf(bytes, end);
  }

  private static @Nullable String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private static void appendEscaped(StringBuilder out, int c) {
    switch (c) {
      case '\\' -> out.append("\\\\");
      case '\n' -> out.append("\\n");
      case '\t' -> out.append("\\t");
      default -> {
        if (c < 0x20 || c == 0x7F) out.append(String.format("\\x%02x", c));
        else out.appendCodePoint(c);
      }
    }
  }
}
