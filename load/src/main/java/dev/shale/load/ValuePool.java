package dev.shale.load;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.SplittableRandom;

/**
 * The values a run writes: windows of {@code valueSizeBytes} at random offsets of one block of
 * random bytes shared by every connection (read-only, so wrapping it needs no copy and no lock).
 * Each value differs from the ones written near it, so a store filled with them is as large on
 * disk as its values say, with compression or without: with one value for every key, a block of
 * a table held the same bytes several times and compressed to nothing (a million 1 KiB values in
 * 50 MiB), and a "larger than memory" store fit in memory.
 */
final class ValuePool {
  /** The random bytes beyond one value: windows 4 MiB apart at most, rarely overlapping. */
  static final int SPREAD_BYTES = 4 << 20;

  private final byte[] bytes;
  private final int valueSizeBytes;

  ValuePool(int valueSizeBytes, long seed) {
    this.valueSizeBytes = valueSizeBytes;
    this.bytes = new byte[valueSizeBytes == 0 ? 0 : valueSizeBytes + SPREAD_BYTES];
    new SplittableRandom(seed).nextBytes(bytes);
  }

  /** A value: a window of the pool chosen by {@code random}, wrapped (no copy). */
  ByteBuf next(SplittableRandom random) {
    if (valueSizeBytes == 0) return Unpooled.EMPTY_BUFFER;
    return Unpooled.wrappedBuffer(bytes, random.nextInt(bytes.length - valueSizeBytes + 1), valueSizeBytes);
  }

  int valueSizeBytes() {
    return valueSizeBytes;
  }
}
