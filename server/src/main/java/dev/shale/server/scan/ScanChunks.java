package dev.shale.server.scan;

import dev.shale.storage.Entry;
import io.netty.buffer.ByteBuf;
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
 * A scan's answer to a client ({@code GET /v0/entities}) as HTTP chunks: one chunk per live
 * entry, {@code <key>\n<value>}, the arrays wrapped, not copied.
 */
final class ScanChunks {
  private static final ByteBuf NEWLINE = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(new byte[] {'\n'}));

  private ScanChunks() {}

  /** The status line and headers of a streamed 200. */
  static HttpResponse head(HttpVersion version, boolean keepAlive) {
    HttpResponse head = new DefaultHttpResponse(version, HttpResponseStatus.OK);
    head.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM);
    HttpUtil.setTransferEncodingChunked(head, true);
    HttpUtil.setKeepAlive(head, keepAlive);
    return head;
  }

  /** Writes the live entries of {@code entries} (not flushed). */
  static void write(ChannelHandlerContext ctx, List<Entry> entries) {
    for (Entry entry : entries) {
      byte[] value = entry.value();
      if (value == null) continue; // a tombstone: the engine hides them; never trust it to be asked right
      ByteBuf chunk = value.length == 0
          ? Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(entry.key()), NEWLINE.duplicate())
          : Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(entry.key()), NEWLINE.duplicate(), Unpooled.wrappedBuffer(value));
      ctx.write(new DefaultHttpContent(chunk), ctx.voidPromise());
    }
  }
}
