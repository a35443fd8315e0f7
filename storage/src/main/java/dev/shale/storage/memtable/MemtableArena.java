package dev.shale.storage.memtable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Native memory for one memtable, outside the Java heap: blocks are carved from chunks and named
 * by a {@code long} reference; all of it is freed at once by {@link #close}.
 *
 * <p>Thread safety: one thread allocates at a time (the memtable's single writer); any number of
 * threads resolve references at once, without locks, provided each reference reached them through
 * a release/acquire pair (or a final field) after its allocation: the chunk table is written
 * before the allocation returns.
 */
final class MemtableArena implements AutoCloseable {
  /*
   * Why native memory. On the heap, a memtable is the collector's worst case: some 16 MiB of small
   * objects (a skip-list node, index nodes, an Entry and two arrays per record) that live long
   * enough to be marked and moved by every young collection, in a heap sized for a store many
   * times larger. The profiles of overwrite and deleterandom put the collector at 38-40% of the
   * CPU (docs/perf/engine.md, "Where Shale is behind, and why"). Here a memtable is a few chunks
   * the collector never looks into.
   *
   * References. A reference is (chunk index << 32) | offset in the chunk. 0 serves as the null
   * reference: chunk 0 offset 0 is the first block allocated, the skip list's head node, whose own
   * reference lies past its links (ArenaSkipList), and every later block starts further in.
   *
   * Chunks. Small blocks are carved from chunks of chunkBytes; a block larger than a quarter of
   * that gets a chunk of its own (a 16 MiB value), so at most a quarter of a chunk is left unused
   * when the next chunk starts. Every block is 8-byte aligned, which the skip list's atomic
   * accesses to its pointers need.
   */

  static final long NULL = 0;
  static final int ALIGNMENT = 8;
  static final long MIN_CHUNK_BYTES = 64 << 10;
  static final long MAX_CHUNK_BYTES = 4 << 20;

  private final Arena arena = Arena.ofShared();
  private final long chunkBytes;
  // Written by the writer before any reference into a new chunk is published, and read without
  // a barrier: a reader holds a reference only through an acquire load (a skip-list link or a
  // payload) that follows that write, so it sees this array or a later, longer copy. A plain
  // field lets a search keep it in a register across nodes.
  private MemorySegment[] chunks = new MemorySegment[8];
  private int chunkCount; // writer only
  private int current = -1; // writer only: the chunk small blocks are carved from, -1 before the first
  private long position; // writer only: the next free offset in chunks[current]
  private volatile long allocatedBytes;

  /** An arena whose chunks are about an eighth of {@code expectedSizeBytes}, within bounds. */
  MemtableArena(long expectedSizeBytes) {
    this.chunkBytes = Math.clamp(expectedSizeBytes / 8, MIN_CHUNK_BYTES, MAX_CHUNK_BYTES);
  }

  /** A zeroed block of at least {@code bytes}, 8-byte aligned. Writer only. */
  @SuppressWarnings("NonAtomicVolatileUpdate") // one writer: see allocatedBytes below
  long allocate(long bytes) {
    long size = align(bytes);
    allocatedBytes += size; // single writer: a plain read-add-write of the volatile is exact
    if (size > chunkBytes / 4) return reference(addChunk(size), 0);
    if (current < 0 || position + size > chunkBytes) {
      current = addChunk(chunkBytes);
      position = 0;
    }
    long offset = position;
    position += size;
    return reference(current, offset);
  }

  /** The chunk holding {@code reference}. */
  MemorySegment segment(long reference) {
    return chunks[(int) (reference >>> 32)];
  }

  /** The offset of {@code reference} in its {@link #segment}. */
  static long offset(long reference) {
    return reference & 0xFFFF_FFFFL;
  }

  /** Bytes handed out by {@link #allocate}, alignment included. */
  long allocatedBytes() {
    return allocatedBytes;
  }

  /**
   * Frees every chunk. Any later access through a reference fails with an IllegalStateException
   * (the FFM API checks), never reads freed memory. Called once, by the memtable's last release.
   */
  @Override
  public void close() {
    arena.close();
  }

  private int addChunk(long bytes) {
    MemorySegment chunk = arena.allocate(bytes, ALIGNMENT);
    MemorySegment[] table = chunks;
    if (chunkCount == table.length) table = Arrays.copyOf(table, table.length * 2);
    table[chunkCount] = chunk;
    chunks = table; // before any reference into the chunk exists, so before its publication
    return chunkCount++;
  }

  private static long reference(int chunk, long offset) {
    return ((long) chunk << 32) | offset;
  }

  private static long align(long bytes) {
    return (bytes + ALIGNMENT - 1) & -ALIGNMENT;
  }
}
