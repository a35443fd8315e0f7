package dev.shale.app;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Bytes as one line of text a terminal shows as they are, for {@code shale scan}: printable
 * UTF-8 characters as themselves; a backslash as {@code \\}, a tab, a newline and a carriage
 * return as {@code \t}, {@code \n}, {@code \r}; every other byte (other control characters, bytes
 * that are not UTF-8) as {@code \xHH}. The escapes never contain a tab or a newline, so a
 * {@code key<TAB>value} line per entry splits back unambiguously, and decoding the escapes gives
 * the bytes back.
 */
final class EscapedBytes {
  private EscapedBytes() {}

  static String of(byte[] bytes) {
    StringBuilder text = new StringBuilder(bytes.length + 16);
    CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(2); // one code point at a time: a surrogate pair at most
    while (in.hasRemaining()) {
      int start = in.position();
      CoderResult result = decodeOne(utf8, in, out);
      if (result.isError()) {
        in.position(start + 1); // a byte that starts no UTF-8 character: escaped alone
        hex(text, bytes[start]);
        continue;
      }
      out.flip();
      int codePoint = Character.codePointAt(out, 0);
      out.clear();
      appendCodePoint(text, codePoint, bytes, start, in.position());
    }
    return text.toString();
  }

  // Decodes the one character at in's position into out (empty): its bytes, or an error.
  private static CoderResult decodeOne(CharsetDecoder utf8, ByteBuffer in, CharBuffer out) {
    int first = in.get(in.position()) & 0xFF;
    int length = first < 0x80 ? 1 : first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : 2;
    if (in.remaining() < length) return CoderResult.malformedForLength(1);
    ByteBuffer one = in.slice(in.position(), length);
    utf8.reset();
    CoderResult result = utf8.decode(one, out, true);
    if (result.isError() || one.hasRemaining() || out.position() == 0) return CoderResult.malformedForLength(1);
    in.position(in.position() + length);
    return result;
  }

  private static void appendCodePoint(StringBuilder text, int codePoint, byte[] bytes, int start, int end) {
    switch (codePoint) {
      case '\\' -> text.append("\\\\");
      case '\t' -> text.append("\\t");
      case '\n' -> text.append("\\n");
      case '\r' -> text.append("\\r");
      default -> {
        if (isPrintable(codePoint)) {
          text.appendCodePoint(codePoint);
        } else {
          for (int i = start; i < end; i++) hex(text, bytes[i]);
        }
      }
    }
  }

  // Control characters (C0, DEL, C1), unassigned code points, and format and separator characters
  // a terminal would act on or hide (line and paragraph separators, bidi controls) are escaped.
  private static boolean isPrintable(int codePoint) {
    return switch (Character.getType(codePoint)) {
      case Character.CONTROL, Character.FORMAT, Character.UNASSIGNED, Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR, Character.PRIVATE_USE, Character.SURROGATE -> false;
      default -> true;
    };
  }

  private static void hex(StringBuilder text, byte b) {
    text.append("\\x").append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
  }
}
