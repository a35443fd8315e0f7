package dev.shale.server;

import dev.shale.storage.ReadRecord;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;

/**
 * A value the engine lent ({@link ReadRecord.Lent}) as a {@link ByteBuf}: the value's memory
 * wrapped, not copied, which the socket writes from where it lies. Its deallocation, when its
 * reference count reaches 0, ends the lease, exactly once, whatever the path: the write done
 * or failed, the answer dropped with its connection ({@link dev.shale.server.http.ResponseQueue#discard}) or never
 * queued.
 */
public final class LentValueBuf extends CompositeByteBuf {
  /*
   * Why a composite of one: Netty's buffers over a ByteBuffer have no hook at deallocation, and
   * the one whose deallocate() is open to subclasses (UnpooledDirectByteBuf) refuses a read-only
   * ByteBuffer, which a lent value's read-only view is. A CompositeByteBuf keeps its own
   * reference count (derived buffers, such as the HTTP encoder's, count on it too) and its
   * deallocate() may be extended. It is direct when its component is, so the transport writes
   * it without a copy.
   */

  private final ReadRecord.Lent lent;

  private LentValueBuf(ReadRecord.Lent lent) {
    super(UnpooledByteBufAllocator.DEFAULT, true, 1, Unpooled.wrappedBuffer(lent.value().asByteBuffer()));
    this.lent = lent;
  }

  /** A buffer over {@code lent}'s value that owns the lease from now on (closed here if this fails). */
  public static ByteBuf of(ReadRecord.Lent lent) {
    try {
      return new LentValueBuf(lent);
    } catch (RuntimeException | Error e) {
      lent.close();
      throw e;
    }
  }

  @Override
  protected void deallocate() {
    try {
      super.deallocate();
    } finally {
      lent.close();
    }
  }
}
