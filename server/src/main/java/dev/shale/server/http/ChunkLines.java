package dev.shale.server.http;

import io.netty.buffer.ByteBuf;

/**
 * The two kinds of line in a chunked body, read strictly (RFC 9112 section 7.1), from a
 * {@link ByteBuf} in place (no copy, no allocation unless refused):
 *
 * <pre>
 *   chunk-line = chunk-size [ chunk-ext ]            ; before the CRLF
 *   chunk-size = 1*HEXDIG
 *   chunk-ext  = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
 *   chunk-ext-name = token
 *   chunk-ext-val  = token / quoted-string
 *   trailer field  = field-name ":" OWS field-value OWS    ; field-name a token, no obs-fold
 * </pre>
 *
 * Netty skipped blanks before the size and ignored whatever followed it unless it held a ';', so
 * {@code " 5"}, {@code "5 garbage"} and {@code "5\x00zz"} read as 5. Each method takes the line
 * without its CRLF, {@code [from, to)}, and throws {@link MalformedChunkException} naming what is
 * wrong.
 */
final class ChunkLines {
  /**
   * The largest chunk size taken: a chunk never holds more than a value may (at most an int's
   * worth), and past it the digits would overflow. Leading zeros do not count.
   */
  static final long MAX_CHUNK_SIZE = Integer.MAX_VALUE;

  private ChunkLines() {}

  /** The chunk size of a chunk line, its extensions checked and ignored (as RFC 9112 allows). */
  static long chunkSize(ByteBuf line, int from, int to) {
    long size = 0;
    int at = from;
    for (int digit; at < to && (digit = hexValue(line.getByte(at))) >= 0; at++) {
      size = size * 16 + digit;
      if (size > MAX_CHUNK_SIZE) throw new MalformedChunkException("a chunk size past " + MAX_CHUNK_SIZE + " bytes");
    }
    if (at == from) throw unexpected(line, at, to, "the chunk size (hex digits)");
    checkExtensions(line, at, to);
    return size;
  }

  /** Checks one trailer field line; its name and value are not kept (RFC 9110 6.5.1 lets a recipient drop them). */
  static void checkTrailerField(ByteBuf line, int from, int to) {
    int nameEnd = skipToken(line, from, to);
    if (nameEnd == from) throw unexpected(line, from, to, "a trailer field's name (continuation lines are not allowed)");
    if (nameEnd == to || line.getByte(nameEnd) != ':') throw unexpected(line, nameEnd, to, "':' right after a trailer field's name");
    for (int at = nameEnd + 1; at < to; at++) {
      if (!isFieldValueByte(line.getByte(at))) throw unexpected(line, at, to, "a trailer field's value");
    }
  }

  // chunk-ext, from right after the size to the line's end. Blanks (BWS) may only come before a
  // ';' or around an '=': a line may not end in them.
  private static void checkExtensions(ByteBuf line, int from, int to) {
    int at = from;
    while (at < to) {
      int semicolon = skipBlanks(line, at, to);
      if (semicolon == to || line.getByte(semicolon) != ';') throw unexpected(line, semicolon, to, "';' or the end of the chunk line");
      int name = skipBlanks(line, semicolon + 1, to);
      at = skipToken(line, name, to);
      if (at == name) throw unexpected(line, name, to, "a chunk extension's name");
      int equals = skipBlanks(line, at, to);
      if (equals < to && line.getByte(equals) == '=') at = skipExtensionValue(line, skipBlanks(line, equals + 1, to), to);
    }
  }

  private static int skipExtensionValue(ByteBuf line, int from, int to) {
    if (from < to && line.getByte(from) == '"') return skipQuotedString(line, from, to);
    int end = skipToken(line, from, to);
    if (end == from) throw unexpected(line, from, to, "a chunk extension's value");
    return end;
  }

  // RFC 9110 5.6.4: DQUOTE *( qdtext / quoted-pair ) DQUOTE; returns the index after the closing quote.
  private static int skipQuotedString(ByteBuf line, int from, int to) {
    for (int at = from + 1; at < to; at++) {
      byte b = line.getByte(at);
      if (b == '"') return at + 1;
      if (b == '\\') {
        if (++at == to || !isFieldValueByte(line.getByte(at))) throw unexpected(line, at, to, "an escaped character");
      } else if (!isFieldValueByte(b)) {
        throw unexpected(line, at, to, "a quoted string's text");
      }
    }
    throw new MalformedChunkException("a chunk extension's quoted string is not closed");
  }

  private static int skipToken(ByteBuf line, int from, int to) {
    int at = from;
    while (at < to && isTokenByte(line.getByte(at))) at++;
    return at;
  }

  private static int skipBlanks(ByteBuf line, int from, int to) {
    int at = from;
    while (at < to && (line.getByte(at) == ' ' || line.getByte(at) == '\t')) at++;
    return at;
  }

  private static int hexValue(byte b) {
    if (b >= '0' && b <= '9') return b - '0';
    if (b >= 'a' && b <= 'f') return b - 'a' + 10;
    if (b >= 'A' && b <= 'F') return b - 'A' + 10;
    return -1;
  }

  // RFC 9110 5.6.2: tchar.
  private static boolean isTokenByte(byte b) {
    return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || "!#$%&'*+-.^_`|~".indexOf(b) >= 0;
  }

  // HTAB, SP, VCHAR, obs-text: what a field value, a quoted string's text (but '"' and '\', which
  // the caller sees first) and an escaped character may hold. A byte is signed: obs-text is < 0.
  private static boolean isFieldValueByte(byte b) {
    return b == '\t' || b >= ' ' && b != 0x7f || b < 0;
  }

  private static MalformedChunkException unexpected(ByteBuf line, int at, int to, String expected) {
    String found = at == to ? "the end of the line" : String.format("byte 0x%02x", line.getByte(at) & 0xff);
    return new MalformedChunkException("found " + found + " where " + expected + " was due");
  }
}
