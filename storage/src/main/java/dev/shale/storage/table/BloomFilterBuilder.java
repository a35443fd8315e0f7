package dev.shale.storage.table;

import dev.shale.storage.util.Murmur3;
import dev.shale.storage.util.Murmur3.Hash128;
import java.io.IOException;
import java.util.Arrays;

/**
 * Collects the keys of a table being written and appends its {@code filter_block}
 * (docs/format.md, "Filter"). The bit array's size depends on the key count, which a streaming
 * writer learns only at the end, so the builder keeps each key's two hash halves (16 bytes a key)
 * rather than the keys. Not thread safe.
 */
final class BloomFilterBuilder {
  private final int bitsPerKey;
  // h1, h2 of key i at [2i], [2i + 1].
  private long[] hashes = new long[1024];
  private int keyCount;

  /** A builder for {@code bitsPerKey} (> 0) bits of filter per key. */
  BloomFilterBuilder(int bitsPerKey) {
    if (bitsPerKey <= 0) throw new IllegalArgumentException("bitsPerKey must be > 0: " + bitsPerKey);
    this.bitsPerKey = bitsPerKey;
  }

  void add(byte[] key) {
    Hash128 hash = Murmur3.hash128(key, BloomFilter.SEED);
    if (2 * keyCount == hashes.length) hashes = Arrays.copyOf(hashes, hashes.length * 2);
    hashes[2 * keyCount] = hash.h1();
    hashes[2 * keyCount + 1] = hash.h2();
    keyCount++;
  }

  /** Appends {@code num_probes bit_count bits crc}, and returns where the block went. */
  BlockHandle writeTo(TableOutput out) throws IOException {
    int numProbes = BloomFilter.numProbes(bitsPerKey);
    long bitCount = BloomFilter.bitCount(keyCount, bitsPerKey);
    byte[] bits = new byte[Math.toIntExact(bitCount / 8)];
    for (int k = 0; k < keyCount; k++) {
      setProbedBits(bits, bitCount, numProbes, hashes[2 * k], hashes[2 * k + 1]);
    }

    long offset = out.position();
    out.startChecksum();
    out.putInt(numProbes);
    out.putU32(bitCount);
    out.putBytes(bits);
    out.putInt(out.checksum());
    return new BlockHandle(offset, out.position() - offset);
  }

  private static void setProbedBits(byte[] bits, long bitCount, int numProbes, long h1, long h2) {
    for (int i = 0; i < numProbes; i++) {
      long bit = BloomFilter.probe(h1, h2, i, bitCount);
      bits[(int) (bit >>> 3)] |= (byte) (1 << (bit & 7));
    }
  }
}
