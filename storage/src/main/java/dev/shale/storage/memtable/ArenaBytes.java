package dev.shale.storage.memtable;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Byte strings in native memory, compared with and copied to and from Java arrays. */
final class ArenaBytes {
  private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
  private static final VarHandle ARRAY_BIG_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private ArenaBytes() {}

  /**
   * Compares the {@code length} bytes at {@code offset} of {@code segment} with {@code bytes} as
   * {@link java.util.Arrays#compareUnsigned(byte[], byte[])} would: unsigned bytes, then a prefix
   * before the longer string. Eight bytes at a time: read big-endian, the first differing byte
   * decides an unsigned comparison of the two words.
   */
  static int compare(MemorySegment segment, long offset, int length, byte[] bytes) {
    int common = Math.min(length, bytes.length);
    int i = 0;
    for (; i + Long.BYTES <= common; i += Long.BYTES) {
      long stored = segment.get(BIG_ENDIAN_LONG, offset + i);
      long given = (long) ARRAY_BIG_ENDIAN_LONG.get(bytes, i);
      if (stored != given) return Long.compareUnsigned(stored, given);
    }
    for (; i < common; i++) {
      int c = Byte.compareUnsigned(segment.get(ValueLayout.JAVA_BYTE, offset + i), bytes[i]);
      if (c != 0) return c;
    }
    return Integer.compare(length, bytes.length);
  }

  /** Copies {@code bytes} to {@code offset} of {@code segment}. */
  static void write(byte[] bytes, MemorySegment segment, long offset) {
    MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, offset, bytes.length);
  }
}
