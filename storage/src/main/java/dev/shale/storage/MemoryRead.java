package dev.shale.storage;

import org.jspecify.annotations.Nullable;

/**
 * What {@link Engine#readFromMemory} found: the read's answer, when memory alone could give it, or
 * {@link #NEEDS_DISK} when it would have to read a table block from the disk. A server answers
 * the first on its event loop and hands only the second to a thread that may wait for the disk.
 */
public sealed interface MemoryRead permits MemoryRead.Answered, MemoryRead.NeedsDisk {

  /** The read needs a block that is not in memory: ask {@link Engine#read} on a thread that may wait. */
  MemoryRead NEEDS_DISK = new NeedsDisk();

  /** The answer {@link Engine#read} would have given: the record, or null if the store has none. */
  record Answered(@Nullable ReadRecord record) implements MemoryRead {}

  /** See {@link #NEEDS_DISK}, its only instance. */
  final class NeedsDisk implements MemoryRead {
    private NeedsDisk() {}

    @Override
    public String toString() {
      return "MemoryRead.NEEDS_DISK";
    }
  }
}
