package dev.shale.storage.table;

import java.lang.foreign.MemorySegment;

/**
 * An array an iterator decompresses its blocks into, one after the other: a scan or a compaction
 * holds one block at a time and copies out each record it returns, so one buffer serves every
 * block it reads, instead of a new array per block. Not thread safe: one per iterator.
 */
final class ScratchBuffer {
  private byte[] bytes = new byte[0];

  /** The first {@code length} bytes of the buffer, grown if needed; valid until the next call. */
  MemorySegment sized(int length) {
    if (bytes.length < length) bytes = new byte[length];
    return MemorySegment.ofArray(bytes).asSlice(0, length);
  }
}
