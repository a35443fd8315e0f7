package dev.shale.storage.util;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Native memory of the C library's {@code malloc} and {@code free}, through the FFM API: memory
 * whose owner frees it at a moment of its choosing, from any thread, for a few tens of
 * nanoseconds. The engine's blocks read from disk live here (the block cache, a read's blocks,
 * iterators' read-ahead buffers).
 *
 * <p>Why not an {@link java.lang.foreign.Arena}: a shared arena frees its memory by a handshake
 * with every thread of the JVM, far too dear for one 4 KiB block; a confined one only on the
 * thread that made it, and an automatic one only when the collector finds it unreachable, which
 * bounds nothing. A block's lifetime is a reference count (the cache's, and each read's), and the
 * last release frees it on whichever thread that is.
 *
 * <p>The caller owns what {@link #allocate} returns and must {@link #free} it exactly once, and
 * never touch it afterwards: unlike an arena's, this memory is not guarded against use after free.
 * The classes that use it keep that rule behind reference counts.
 */
public final class NativeMemory {
  private static final MethodHandle MALLOC;
  private static final MethodHandle FREE;

  static {
    Linker linker = Linker.nativeLinker();
    MALLOC = linker.downcallHandle(linker.defaultLookup().find("malloc").orElseThrow(),
        FunctionDescriptor.of(ADDRESS, JAVA_LONG), Linker.Option.critical(false));
    FREE = linker.downcallHandle(linker.defaultLookup().find("free").orElseThrow(),
        FunctionDescriptor.ofVoid(ADDRESS), Linker.Option.critical(false));
  }

  private NativeMemory() {}

  /**
   * {@code bytes} of new native memory (contents undefined), aligned for any value layout; an
   * {@link OutOfMemoryError} if the C library has none to give.
   */
  public static MemorySegment allocate(long bytes) {
    if (bytes < 0) throw new IllegalArgumentException("negative size: " + bytes);
    MemorySegment address;
    try {
      // malloc(0) may return NULL or a unique pointer: ask for at least one byte.
      address = (MemorySegment) MALLOC.invokeExact(Math.max(1, bytes));
    } catch (Throwable e) {
      throw new IllegalStateException("malloc through FFM failed", e);
    }
    if (address.equals(MemorySegment.NULL)) {
      throw new OutOfMemoryError("malloc of " + bytes + " bytes of native memory failed");
    }
    return address.reinterpret(bytes);
  }

  /** Frees memory of {@link #allocate} (the segment it returned, not a slice of it). */
  public static void free(MemorySegment memory) {
    try {
      FREE.invokeExact(memory);
    } catch (Throwable e) {
      throw new IllegalStateException("free through FFM failed", e);
    }
  }
}
