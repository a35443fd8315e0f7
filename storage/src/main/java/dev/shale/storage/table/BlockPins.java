package dev.shale.storage.table;

import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The blocks one read holds while it compares and copies what it found in them: each
 * {@link Table#find} adds the block its record lies in, and {@link #close} gives them all back
 * once the read has copied (or lent) its winner. A {@link FoundRecord} found through these pins is
 * valid until they close. For one read on one thread; a get pins one block per table it reads.
 */
public final class BlockPins implements AutoCloseable {
  private @Nullable LoadedBlock[] blocks = new LoadedBlock[4];
  private int count;
  private final boolean cachedOnly;
  private boolean missedCache; // a find through these pins met a block not cached (cachedOnly)

  /** Pins for a read that loads the blocks it needs. */
  public BlockPins() {
    this(false);
  }

  private BlockPins(boolean cachedOnly) {
    this.cachedOnly = cachedOnly;
  }

  /**
   * Pins for a read that must not wait for the disk: {@link Table#find} takes blocks only from the
   * block cache, and at a block that is not there finds nothing and marks {@link #missedCache}.
   */
  public static BlockPins cachedOnly() {
    return new BlockPins(true);
  }

  boolean isCachedOnly() {
    return cachedOnly;
  }

  void markMissedCache() {
    missedCache = true;
  }

  /** True once a find through these cache-only pins needed a block the cache did not hold: its answer is not the read's. */
  public boolean missedCache() {
    return missedCache;
  }

  /** Takes over a reference the caller holds on {@code block}. */
  void add(LoadedBlock block) {
    if (count == blocks.length) blocks = Arrays.copyOf(blocks, count * 2);
    blocks[count++] = block;
  }

  /** How many blocks are pinned: the last one added is {@code count() - 1}. */
  public int count() {
    return count;
  }

  /**
   * Takes one more reference on pinned block {@code i} (in the order added) and returns the action
   * that gives it back, once: a value lent past the read keeps its block, and no other, until the
   * lease ends.
   */
  public Runnable hold(int i) {
    if (i < 0 || i >= count) throw new IndexOutOfBoundsException("pin " + i + " of " + count);
    LoadedBlock block = Objects.requireNonNull(blocks[i]);
    if (!block.tryRetain()) throw new IllegalStateException("a pinned block was freed");
    return block::release;
  }

  /** Releases every block pinned; the pins may be used again afterwards. */
  @Override
  public void close() {
    for (int i = 0; i < count; i++) {
      Objects.requireNonNull(blocks[i]).release();
      blocks[i] = null;
    }
    count = 0;
    missedCache = false;
  }
}
