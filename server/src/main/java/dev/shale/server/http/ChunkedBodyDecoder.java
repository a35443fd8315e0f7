package dev.shale.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;

/**
 * Reads one chunked body (RFC 9112 section 7.1) strictly, as Netty's decoder does not:
 * {@code *chunk last-chunk trailer-section CRLF}, every chunk line by {@link ChunkLines}, each
 * chunk's data followed by exactly CRLF, lines ended by CRLF (a bare LF is refused), a chunk line
 * of at most {@code maxLineBytes} and a trailer section of at most {@code maxTrailerBytes}.
 * Emits what Netty's decoder would: an {@link io.netty.handler.codec.http.HttpContent} per piece
 * of data (a retained slice of the read buffer, at most {@code maxContentBytes}; the aggregator
 * copies it out at once) and {@link LastHttpContent#EMPTY_LAST_CONTENT} at the end. Trailer
 * fields are checked and dropped: nothing here reads them.
 *
 * <p>The bytes may come in any pieces: a line not yet whole waits for more (its bytes scanned
 * once), data goes on as it arrives. Nothing is allocated per byte; per chunk only what Netty
 * allocates too (the content and its slice).
 *
 * <p>One body per instance. Not thread safe: owned by one connection's decoder.
 */
final class ChunkedBodyDecoder {
  private enum State {
    CHUNK_LINE,
    DATA,
    DATA_END,
    TRAILER_LINE,
  }

  private final int maxLineBytes;
  private final int maxTrailerBytes;
  private final int maxContentBytes;

  private State state = State.CHUNK_LINE;
  // DATA: the bytes of the current chunk still to come.
  private long chunkRemaining;
  // The bytes after the reader index already searched for the current line's LF.
  private int lineScanned;
  // The bytes of the trailer section consumed so far, its lines' CRLFs included.
  private int trailerBytes;

  ChunkedBodyDecoder(int maxLineBytes, int maxTrailerBytes, int maxContentBytes) {
    this.maxLineBytes = maxLineBytes;
    this.maxTrailerBytes = maxTrailerBytes;
    this.maxContentBytes = maxContentBytes;
  }

  /**
   * Decodes what {@code in} holds of the body, adding contents to {@code out}; returns true once
   * the body ended (its last content added, the bytes after it left in {@code in}).
   *
   * @throws MalformedChunkException when the bytes are not a strict chunked body
   */
  boolean decode(ByteBuf in, List<Object> out) {
    while (true) {
      switch (state) {
        case CHUNK_LINE -> {
          int lf = lineEnd(in, maxLineBytes, "a chunk line");
          if (lf < 0) return false;
          chunkRemaining = ChunkLines.chunkSize(in, in.readerIndex(), lf - 1);
          in.readerIndex(lf + 1);
          state = chunkRemaining == 0 ? State.TRAILER_LINE : State.DATA;
        }
        case DATA -> {
          int n = (int) Math.min(Math.min(chunkRemaining, in.readableBytes()), maxContentBytes);
          if (n == 0) return false;
          out.add(new DefaultHttpContent(in.readRetainedSlice(n)));
          chunkRemaining -= n;
          if (chunkRemaining == 0) state = State.DATA_END;
        }
        case DATA_END -> {
          int readable = in.readableBytes();
          if (readable > 0 && in.getByte(in.readerIndex()) != '\r' || readable > 1 && in.getByte(in.readerIndex() + 1) != '\n') {
            throw new MalformedChunkException("a chunk's data must be followed by CRLF");
          }
          if (readable < 2) return false;
          in.skipBytes(2);
          state = State.CHUNK_LINE;
        }
        case TRAILER_LINE -> {
          int lf = lineEnd(in, maxTrailerBytes - trailerBytes, "the trailer section");
          if (lf < 0) return false;
          int lineStart = in.readerIndex();
          trailerBytes += lf + 1 - lineStart;
          in.readerIndex(lf + 1);
          if (lf - 1 == lineStart) {
            out.add(LastHttpContent.EMPTY_LAST_CONTENT);
            return true;
          }
          ChunkLines.checkTrailerField(in, lineStart, lf - 1);
        }
      }
    }
  }

  /**
   * The index of the LF that ends the line starting at the reader index, or -1 while it has not
   * arrived; refuses a line (LF included) longer than {@code limitBytes}, and a LF without a CR.
   */
  private int lineEnd(ByteBuf in, int limitBytes, String what) {
    int start = in.readerIndex();
    int searchable = Math.min(in.readableBytes(), limitBytes);
    int lf = lineScanned < searchable ? in.indexOf(start + lineScanned, start + searchable, (byte) '\n') : -1;
    if (lf < 0) {
      if (in.readableBytes() >= limitBytes) throw new MalformedChunkException(what + " is longer than its limit");
      lineScanned = searchable;
      return -1;
    }
    lineScanned = 0;
    if (lf == start || in.getByte(lf - 1) != '\r') throw new MalformedChunkException("a line must end in CRLF, not a bare LF");
    return lf;
  }
}
