package dev.shale.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Netty's HTTP/1.1 server codec, with a request line read strictly (RFC 9112 section 3):
 * {@code method SP request-target SP HTTP-version}, one space between the parts, a method made
 * of token characters, a target without control bytes or spaces, and a version that is exactly
 * {@code HTTP/DIGIT.DIGIT}, case-sensitive. Netty's decoder splits the line on any run of
 * space, tab, VT, FF or bare CR, so {@code DELETE\r /v0/...} or {@code PUT\x0b /v0/...} would
 * run as a DELETE or a PUT where another reader of the same bytes (a proxy) sees something
 * else: a line that is not strict is a decoder failure here (400), and a well-formed version
 * other than 1.0 and 1.1 is {@link UnsupportedVersionException} (505). A second
 * {@code Content-Length} header is refused here too (Netty would use the first in HTTP/1.0, and
 * hides that there were two). Before a request line only empty lines (CRLF) may come (RFC 9112
 * section 2.2); Netty skips any control byte or space there, which here is a 400 too. The failure's message
 * makes the decoder drop the rest of the connection's bytes.
 *
 * <p>Chunked bodies are read here, not by Netty ({@link ChunkedBodyDecoder}): Netty's chunk-size
 * parsing is private and lenient ({@code " 5"}, {@code "5 garbage"}, {@code "5\x00zz"} read as 5;
 * folded trailers pass). Netty still reads every head and chooses its framing (and refuses
 * {@code Transfer-Encoding} where RFC 9112 forbids it); once it has passed on the head of a
 * request whose body is chunked, the body's bytes go to a {@link ChunkedBodyDecoder}, and at its
 * end Netty's decoder is {@link HttpRequestDecoder#reset() reset} to read the next request. A
 * malformed body is a failed {@code LastHttpContent} (400, close), and the rest is dropped.
 *
 * <p>It plays HttpServerCodec's other part too: the response to a HEAD request carries no body,
 * so the encoder pairs each response with the method of the oldest request not yet answered.
 * Each request gets exactly one response ({@link ResponseQueue}), which keeps that pairing.
 *
 * <p>When the client ends its side of the connection (a half-close, with
 * {@code ALLOW_HALF_CLOSURE}), the decoder decodes what it still holds and then passes
 * {@link InputEnded} down as a message, after the last request, so that it cannot overtake
 * requests that {@code FlowControlHandler} still holds.
 */
public final class StrictServerCodec extends CombinedChannelDuplexHandler<HttpRequestDecoder, HttpResponseEncoder> {

  /** The client sent its last byte; follows the last request decoded. */
  enum InputEnded {
    INSTANCE
  }

  /** A request line whose version is well-formed but not one this server speaks (1.0, 1.1). */
  static final class UnsupportedVersionException extends IllegalArgumentException {
    UnsupportedVersionException(String version) {
      super("HTTP version " + version + " is not supported; use HTTP/1.1");
    }
  }

  // The methods of the requests decoded and not yet answered, oldest first.
  private final ArrayDeque<HttpMethod> unanswered = new ArrayDeque<>();

  public StrictServerCodec(HttpDecoderConfig config) {
    init(new StrictRequestDecoder(config), new PairedResponseEncoder());
  }

  private final class StrictRequestDecoder extends HttpRequestDecoder {
    // Where the method and the target end in the line being split: the word hooks run in order.
    private int methodEnd;
    private int targetEnd;
    // Content-Length headers seen in the current request's head.
    private int contentLengths;
    // Between requests: the next byte that is not part of an empty line starts a request line.
    private boolean beforeRequestLine = true;
    // A byte other than CR or LF came before the request line being read (-1: none).
    private int junkBeforeRequestLine = -1;
    // The chunked body being read, or null: Netty's decoder reads the bytes.
    private @Nullable ChunkedBodyDecoder chunkedBody;
    // A chunked body was malformed: every byte after it is dropped.
    private boolean chunkedBodyFailed;
    private final int maxLineBytes;
    private final int maxTrailerBytes;
    private final int maxContentBytes;

    StrictRequestDecoder(HttpDecoderConfig config) {
      super(config);
      maxLineBytes = config.getMaxInitialLineLength();
      maxTrailerBytes = config.getMaxHeaderSize();
      maxContentBytes = config.getMaxChunkSize();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
      if (chunkedBodyFailed) {
        buffer.skipBytes(buffer.readableBytes());
        return;
      }
      if (chunkedBody != null) {
        decodeChunkedBody(chunkedBody, buffer, out);
        return;
      }
      if (beforeRequestLine) noteBytesBeforeRequestLine(buffer);
      int before = out.size();
      super.decode(ctx, buffer, out);
      for (int i = before; i < out.size(); i++) {
        if (out.get(i) instanceof HttpRequest request) {
          unanswered.add(request.method());
          if (hasChunkedBody(request)) chunkedBody = new ChunkedBodyDecoder(maxLineBytes, maxTrailerBytes, maxContentBytes);
        }
        if (out.get(i) instanceof LastHttpContent) beforeRequestLine = true;
      }
    }

    // Netty's own test for a chunked body (readHeaders), on a head it passed: it then returns
    // right after the head, in its READ_CHUNK_SIZE state, with the body's bytes unread.
    private static boolean hasChunkedBody(HttpRequest request) {
      return !(request instanceof LastHttpContent) && request.decoderResult().isSuccess()
          && HttpUtil.isTransferEncodingChunked(request);
    }

    private void decodeChunkedBody(ChunkedBodyDecoder body, ByteBuf buffer, List<Object> out) {
      try {
        if (!body.decode(buffer, out)) return;
      } catch (MalformedChunkException e) {
        chunkedBodyFailed = true;
        chunkedBody = null;
        buffer.skipBytes(buffer.readableBytes());
        DefaultLastHttpContent failed = new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER);
        failed.setDecoderResult(DecoderResult.failure(e));
        out.add(failed);
        return;
      }
      chunkedBody = null;
      beforeRequestLine = true;
      reset(); // Netty's decoder, still in its chunked state, starts over at the next byte
    }

    // RFC 9112 2.2: empty lines (CRLF) may come before a request line, and nothing else. Netty
    // skips every control byte and space there: they are noted here, and the request line that
    // follows is refused (400) as it is split, as any other line that is not strict.
    private void noteBytesBeforeRequestLine(ByteBuf buffer) {
      for (int i = buffer.readerIndex(); i < buffer.writerIndex(); i++) {
        byte b = buffer.getByte(i);
        if (b == '\r' || b == '\n') continue;
        if (!isSkippedBeforeRequestLine(b)) {
          beforeRequestLine = false;
          return;
        }
        if (junkBeforeRequestLine < 0) junkBeforeRequestLine = b & 0xff;
      }
    }

    @Override
    protected String splitFirstWordInitialLine(byte[] line, int start, int length) {
      int junk = junkBeforeRequestLine;
      beforeRequestLine = false;
      junkBeforeRequestLine = -1;
      if (junk >= 0) throw new IllegalArgumentException("byte " + hex((byte) junk) + " before the request line");
      for (int i = start; i < start + length; i++) {
        if (!isTokenChar(line[i])) throw new IllegalArgumentException("the method holds byte " + hex(line[i]));
      }
      methodEnd = start + length;
      contentLengths = 0; // a new request
      return super.splitFirstWordInitialLine(line, start, length);
    }

    @Override
    protected AsciiString splitHeaderName(byte[] line, int start, int length) {
      AsciiString name = super.splitHeaderName(line, start, length);
      // Netty refuses a second Content-Length in HTTP/1.1 but uses the first in HTTP/1.0, and
      // keeps only the one it used: the second must be refused here, where it is still seen.
      if (HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name) && ++contentLengths > 1) {
        throw new IllegalArgumentException("a request must not have two Content-Length headers");
      }
      return name;
    }

    @Override
    protected String splitSecondWordInitialLine(byte[] line, int start, int length) {
      requireOneSpace(line, methodEnd, start, "the method and the target");
      for (int i = start; i < start + length; i++) {
        // Bytes of 0x80 and up pass: ids may come as raw UTF-8 (IdDecoder checks them).
        if (line[i] >= 0 && line[i] <= ' ' || line[i] == 0x7f) {
          throw new IllegalArgumentException("the request target holds byte " + hex(line[i]));
        }
      }
      targetEnd = start + length;
      return super.splitSecondWordInitialLine(line, start, length);
    }

    @Override
    protected String splitThirdWordInitialLine(byte[] line, int start, int length) {
      requireOneSpace(line, targetEnd, start, "the target and the version");
      String version = new String(line, start, length, StandardCharsets.ISO_8859_1);
      boolean wellFormed = length == 8 && version.startsWith("HTTP/") && isDigit(line[start + 5])
          && line[start + 6] == '.' && isDigit(line[start + 7]);
      if (!wellFormed) throw new IllegalArgumentException("malformed HTTP version '" + version + "'");
      if (!version.equals("HTTP/1.1") && !version.equals("HTTP/1.0")) throw new UnsupportedVersionException(version);
      return super.splitThirdWordInitialLine(line, start, length);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
      super.userEventTriggered(ctx, event); // decodes what is left, then passes the event on
      if (event instanceof ChannelInputShutdownEvent) ctx.fireChannelRead(InputEnded.INSTANCE);
    }
  }

  private final class PairedResponseEncoder extends HttpResponseEncoder {
    @Override
    protected boolean isContentAlwaysEmpty(HttpResponse response) {
      return HttpMethod.HEAD.equals(unanswered.poll()) || super.isContentAlwaysEmpty(response);
    }
  }

  private static void requireOneSpace(byte[] line, int end, int nextStart, String between) {
    if (nextStart != end + 1 || line[end] != ' ') {
      throw new IllegalArgumentException("the request line must have exactly one space between " + between);
    }
  }

  private static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }

  // RFC 9110 section 5.6.2: tchar.
  // The bytes Netty's decoder skips before a request line: controls, space, DEL (and C1 controls).
  private static boolean isSkippedBeforeRequestLine(byte b) {
    int c = b & 0xff;
    return c <= ' ' || (c >= 0x7f && c <= 0x9f);
  }

  private static boolean isTokenChar(byte b) {
    return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || isDigit(b) || "!#$%&'*+-.^_`|~".indexOf(b) >= 0;
  }

  private static String hex(byte b) {
    return String.format("0x%02x", b & 0xff);
  }
}
