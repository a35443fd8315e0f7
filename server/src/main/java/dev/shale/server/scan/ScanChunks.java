package dev.shale.server.scan;

import dev.shale.storage.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;

/**
 * Writes a scan's body as HTTP chunks. The client's format ({@code GET /v0/entities}): one
 * chunk per entry, {@code <key>\n<value>}, the arrays wrapped, not copied. The internal format
 * ({@link RecordFrames}): the stream's header, then one chunk per batch of record frames, then
 * the end frame.
 */
sealed interface ScanChunks {
  String RECORDS_CONTENT_TYPE = "application/x-shale-records";

  /** The status line and headers of a streamed 200. */
  HttpResponse head(HttpVersion version, boolean keepAlive);

  /** Writes {@code entries} (not flushed); {@code first}: nothing of the body was written yet. */
  void write(ChannelHandlerContext ctx, List<Entry> entries, boolean first);

  /** Writes what closes the body (not the terminating chunk). */
  void end(ChannelHandlerContext ctx);

  /** The client's format: live entries, one per chunk. */
  record Entries() implements ScanChunks {
    private static final ByteBuf NEWLINE = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(new byte[] {'\n'}));

    @Override
    public HttpResponse head(HttpVersion version, boolean keepAlive) {
      return streamed(version, keepAlive, HttpHeaderValues.APPLICATION_OCTET_STREAM);
    }

    @Override
    public void write(ChannelHandlerContext ctx, List<Entry> entries, boolean first) {
      for (Entry entry : entries) {
        byte[] value = entry.value();
        if (value == null) continue; // a tombstone: the engine hides them; never trust it to be asked right
        ByteBuf chunk = value.length == 0
            ? Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(entry.key()), NEWLINE.duplicate())
            : Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(entry.key()), NEWLINE.duplicate(), Unpooled.wrappedBuffer(value));
        ctx.write(new DefaultHttpContent(chunk), ctx.voidPromise());
      }
    }

    @Override
    public void end(ChannelHandlerContext ctx) {}
  }

  /** The internal format: every record with its version, tombstones included, in frames. */
  final class Records implements ScanChunks {
    private long records; // sent so far, for the end frame

    @Override
    public HttpResponse head(HttpVersion version, boolean keepAlive) {
      return streamed(version, keepAlive, RECORDS_CONTENT_TYPE);
    }

    @Override
    public void write(ChannelHandlerContext ctx, List<Entry> entries, boolean first) {
      CompositeByteBuf chunk = Unpooled.compositeBuffer(Integer.MAX_VALUE);
      if (first) chunk.addComponent(true, RecordFrames.header());
      for (Entry entry : entries) chunk.addComponent(true, RecordFrames.record(entry));
      records += entries.size();
      if (chunk.isReadable()) ctx.write(new DefaultHttpContent(chunk), ctx.voidPromise());
      else chunk.release();
    }

    @Override
    public void end(ChannelHandlerContext ctx) {
      ctx.write(new DefaultHttpContent(RecordFrames.end(records)), ctx.voidPromise());
    }
  }

  private static HttpResponse streamed(HttpVersion version, boolean keepAlive, CharSequence contentType) {
    HttpResponse head = new DefaultHttpResponse(version, HttpResponseStatus.OK);
    head.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    HttpUtil.setTransferEncodingChunked(head, true);
    HttpUtil.setKeepAlive(head, keepAlive);
    return head;
  }
}
