package dev.shale.storage.io;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Copies bytes out of a {@link MemorySegment} into a new array.
 *
 * <p>Why not {@code segment.asSlice(offset, length).toArray(JAVA_BYTE)}: that allocates a slice of
 * the segment, and {@code toArray} a heap segment and its session around the new array, three
 * objects per copy besides the array. On the hot paths (a record's value or key read from a
 * memtable, a table block, the log) they were 18% of a node's allocated bytes under PUT load
 * (docs/perf/single-node.md); {@link MemorySegment#copy(MemorySegment, ValueLayout.OfByte, long,
 * Object, int, int)} copies straight into the array.
 */
public final class SegmentBytes {
  private SegmentBytes() {}

  /** A new array holding the {@code length} bytes at {@code offset} of {@code segment}. */
  public static byte[] copyOf(MemorySegment segment, long offset, long length) {
    byte[] copy = new byte[Math.toIntExact(length)];
    MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, copy, 0, copy.length);
    return copy;
  }

  /** A new array holding the whole of {@code segment}. */
  public static byte[] copyOf(MemorySegment segment) {
    return copyOf(segment, 0, segment.byteSize());
  }
}
