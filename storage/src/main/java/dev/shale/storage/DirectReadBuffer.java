package dev.shale.storage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Each thread's aligned memory for the direct reads of {@link PosixReadableFile}: a get's read of
 * one block needs a few KiB aligned to {@link PosixFile#DIRECT_ALIGNMENT}, and a malloc and free of
 * them around every read showed in a node's profile, so a thread keeps one buffer and reuses it.
 * It grows to the largest read asked of it, up to {@link #MAX_BYTES}; a larger read takes memory
 * of its own (the caller's). Memory: one buffer per thread that reads directly (a node's storage
 * workers), at most {@link #MAX_BYTES} each, freed once its thread is gone.
 */
final class DirectReadBuffer {
  /** The largest buffer a thread keeps. */
  static final long MAX_BYTES = 256 << 10;
  private static final long FIRST_BYTES = 16 << 10; // a 4 KiB block across three pages, and more

  private static final ThreadLocal<MemorySegment> BUFFER = ThreadLocal.withInitial(() -> allocate(FIRST_BYTES));

  private DirectReadBuffer() {}

  /**
   * This thread's buffer, {@code bytes} long (at most {@link #MAX_BYTES}) and aligned: valid until
   * this thread's next call, which overwrites it.
   */
  static MemorySegment of(long bytes) {
    if (bytes > MAX_BYTES) throw new IllegalArgumentException(bytes + " bytes is over " + MAX_BYTES);
    MemorySegment buffer = BUFFER.get();
    if (buffer.byteSize() < bytes) {
      buffer = allocate(Math.min(MAX_BYTES, Math.max(bytes, buffer.byteSize() * 2)));
      BUFFER.set(buffer); // the smaller one is freed once the GC finds it unreachable
    }
    return buffer.asSlice(0, bytes);
  }

  private static MemorySegment allocate(long bytes) {
    return Arena.ofAuto().allocate(bytes, PosixFile.DIRECT_ALIGNMENT);
  }
}
