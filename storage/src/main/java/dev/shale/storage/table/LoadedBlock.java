package dev.shale.storage.table;

import dev.shale.storage.util.NativeMemory;
import dev.shale.storage.util.RefCount;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;

/**
 * A data block read from its table and checked (crc, and decompressed if it was compressed), in
 * native memory of its own: what the {@link BlockCache} keeps and what a get searches.
 *
 * <p>Lifetime: a reference count. Whoever loads a block holds the first reference; the cache
 * takes one of its own while it keeps the block, and each read that finds it there takes one
 * ({@link #tryRetain}) for as long as it uses the block's bytes (a {@link BlockPins} holds it until
 * the read ends, a value lent from the block until the lease closes). The release that takes the
 * count to 0 frees the memory, on whichever thread that is; a block at 0 is never revived, so a
 * read that loses the race with the cache's eviction sees a miss and loads the block anew.
 */
final class LoadedBlock {
  private final MemorySegment memory; // what NativeMemory.allocate returned, freed at count 0
  private final MemorySegment contents; // the checked contents: memory, or a slice of it
  private final LongAdder heldBytes; // the engine's count of native memory held by blocks
  // Invariant: > 0 while any holder may read contents; the step to 0 frees memory, exactly once.
  private final RefCount references = new RefCount("block");

  /**
   * A block whose checked contents are {@code contents}, in (or equal to) {@code memory}, counted
   * in {@code heldBytes} until freed.
   */
  LoadedBlock(MemorySegment memory, MemorySegment contents, LongAdder heldBytes) {
    this.memory = memory;
    this.contents = contents;
    this.heldBytes = heldBytes;
    heldBytes.add(memory.byteSize());
  }

  /** The checked contents: valid while the caller holds a reference. */
  MemorySegment contents() {
    return contents;
  }

  /** The native memory this block holds until its last reference goes. */
  long memoryBytes() {
    return memory.byteSize();
  }

  /** Takes a reference, unless the last one is gone already (then false: the block is freed). */
  boolean tryRetain() {
    return references.tryRetain();
  }

  /** Gives a reference back; the last frees the memory. */
  void release() {
    if (!references.release()) return;
    heldBytes.add(-memory.byteSize());
    NativeMemory.free(memory);
  }
}
