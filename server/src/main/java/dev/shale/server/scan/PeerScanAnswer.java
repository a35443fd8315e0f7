package dev.shale.server.scan;

import dev.shale.server.peer.PeerMessage;
import dev.shale.storage.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import java.util.List;

/**
 * A peer's scan (SCAN) answered from this node's engine: the internal scan stream
 * ({@link RecordFrames}: the header, the records of the range with their versions, tombstones
 * included, the end frame) in SCAN_DATA frames of the request's id; a failure is FAILED, and the
 * connection is closed after it. A batch of records goes out as SCAN_DATA frames of at most
 * {@link #PIECE_BYTES} of the stream each (the stream may be cut anywhere, docs/format.md), so a
 * frame stays within any peer's frame limit whatever the records' sizes.
 *
 * <p>Confined to the connection's event loop.
 */
final class PeerScanAnswer implements ScanSink {
  /** Bytes of the stream per SCAN_DATA frame at most. */
  static final int PIECE_BYTES = 64 * 1024;

  private final ChannelHandlerContext ctx;
  private final long id;
  private long records; // sent so far, for the end frame

  PeerScanAnswer(ChannelHandlerContext ctx, long id) {
    this.ctx = ctx;
    this.id = id;
  }

  @Override
  public void write(List<Entry> batch, boolean first) {
    CompositeByteBuf stream = ctx.alloc().compositeBuffer(Integer.MAX_VALUE);
    if (first) stream.addComponent(true, RecordFrames.header());
    for (Entry entry : batch) stream.addComponent(true, RecordFrames.record(entry));
    records += batch.size();
    send(stream);
  }

  @Override
  public void end() {
    send(RecordFrames.end(records));
    ctx.flush(); // the coordinator closes the connection once it read the end
  }

  @Override
  public void busy(String reason) {
    failed(PeerMessage.Failed.OVERLOADED, reason);
  }

  @Override
  public void fail(String reason, boolean began) {
    failed(PeerMessage.Failed.STORAGE_FAILED, "scan failed: " + reason);
  }

  private void failed(int code, String reason) {
    ctx.writeAndFlush(new PeerMessage.Failed(id, code, reason)).addListener(ChannelFutureListener.CLOSE);
  }

  /** Writes {@code stream} (taken over) as SCAN_DATA frames, not flushed. */
  private void send(ByteBuf stream) {
    while (stream.readableBytes() > PIECE_BYTES) {
      ctx.write(new PeerMessage.ScanData(id, stream.readRetainedSlice(PIECE_BYTES)), ctx.voidPromise());
    }
    if (stream.isReadable()) {
      ctx.write(new PeerMessage.ScanData(id, stream), ctx.voidPromise());
    } else {
      stream.release();
    }
  }
}
