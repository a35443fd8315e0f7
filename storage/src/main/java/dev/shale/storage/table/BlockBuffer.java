package dev.shale.storage.table;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A data block's contents held in memory while it is built, so that it can be compressed whole
 * when it closes. It holds at most {@link TableFormat#MAX_COMPRESSED_CONTENTS_BYTES} (a bigger block
 * goes straight to the file: BlockBuilder), so its array is reused block after block. Not thread
 * safe.
 */
final class BlockBuffer implements FieldSink {
  private static final int INITIAL_BYTES = 8 * 1024;
  private static final VarHandle U32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle U64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private byte[] bytes = new byte[INITIAL_BYTES];
  private int size;

  @Override
  public long position() {
    return size;
  }

  @Override
  public void putByte(byte b) {
    ensureRoom(1);
    bytes[size++] = b;
  }

  @Override
  public void putInt(int i) {
    ensureRoom(4);
    U32.set(bytes, size, i);
    size += 4;
  }

  @Override
  public void putLong(long l) {
    ensureRoom(8);
    U64.set(bytes, size, l);
    size += 8;
  }

  @Override
  public void putBytes(byte[] source, int offset, int length) {
    ensureRoom(length);
    System.arraycopy(source, offset, bytes, size, length);
    size += length;
  }

  /** The array the contents are in: bytes [0, {@link #position}) of it. */
  byte[] array() {
    return bytes;
  }

  void clear() {
    size = 0;
  }

  private void ensureRoom(int more) {
    int needed = size + more;
    if (needed > TableFormat.MAX_COMPRESSED_CONTENTS_BYTES) {
      throw new IllegalStateException("a block buffer holds at most " + TableFormat.MAX_COMPRESSED_CONTENTS_BYTES + " bytes");
    }
    if (needed > bytes.length) bytes = Arrays.copyOf(bytes, Math.max(needed, Math.min(2 * bytes.length, TableFormat.MAX_COMPRESSED_CONTENTS_BYTES)));
  }
}
