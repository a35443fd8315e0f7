package dev.shale.storage.table;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import dev.shale.storage.util.Murmur3.Hash128;
import dev.shale.storage.util.Murmur3;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Iterator;
import org.jspecify.annotations.Nullable;

/**
 * An open table (docs/format.md, "Table"): memory-mapped, immutable, thread safe.
 *
 * <p>Lifetime: {@link #close} unmaps the file; the caller makes sure no read or iterator of this
 * table is in flight then, and calls nothing afterwards (the engine reference-counts tables).
 */
public final class Table implements AutoCloseable {
  /*
   * Design. The file is mapped whole into a shared Arena, and data blocks are read on the mapping
   * in place. The filter and the index are copied at open into native memory of the same Arena
   * (about 1.5% of the table: 10 bits a key, and a key a block), checked there once (crc and
   * structure) and then searched there: every read consults them, so they are kept where no read
   * waits for the disk, as LevelDB's and RocksDB's table readers keep them. A get probes the Bloom
   * filter, binary-searches the index for the one block that can hold the key, takes that block's
   * checked contents from the engine's BlockCache or else checks its crc (and decompresses it) and
   * caches it, searches it (DataBlock: a binary search over its restart points or, in tables
   * before format 3, its entries), and copies out only the found value (find() not even that: it
   * returns the value in place). So a get waits for the disk at most for its one data block.
   * Iterators (scans, compactions) use cached blocks but do not add theirs: a scan reads each
   * block once, and would only push out the blocks gets come back to.
   */

  private final Path path;
  private final long fileNumber;
  private final Arena arena;
  private final MemorySegment file;
  private final Footer footer;
  private final IndexBlock index;
  private final @Nullable BloomFilter filter; // null when the table was written without one, or it is damaged
  private final @Nullable String filterDamage; // why the table's filter is not used, or null
  // The engine's, shared by all its tables; it also counts their block reads (EngineStats.blockReads).
  private final BlockCache blockCache;

  private Table(Path path, long fileNumber, Arena arena, MemorySegment file, BlockCache blockCache) {
    this.blockCache = blockCache;
    this.path = path;
    this.fileNumber = fileNumber;
    this.arena = arena;
    this.file = file;
    this.footer = Footer.decode(file, path);
    this.index = IndexBlock.open(inMemory(arena, file, footer.index()), footer, path);
    BloomFilter opened = null;
    String damage = null;
    if (footer.filter().length() > 0) {
      // A filter only spares reads (docs/format.md, "Filter"): without it every get reads the one
      // block that can hold the key, so a damaged filter costs speed, never data.
      try {
        opened = BloomFilter.open(inMemory(arena, file, footer.filter()), footer.filter().offset(), path);
      } catch (CorruptionException e) {
        damage = e.problem();
      }
    }
    this.filter = opened;
    this.filterDamage = damage;
  }

  // A copy of the block in native memory of the table's arena, freed when the table closes.
  private static MemorySegment inMemory(Arena arena, MemorySegment file, BlockHandle block) {
    MemorySegment copy = arena.allocate(block.length(), 8);
    copy.copyFrom(file.asSlice(block.offset(), block.length()));
    return copy;
  }

  /**
   * Maps the file and checks its footer, index and filter (CorruptionException naming the file if
   * the footer or index is bad; a bad filter is left unused, see {@link #filterDamage}).
   */
  public static Table open(Vfs vfs, Path file, long fileNumber) throws IOException {
    return open(vfs, file, fileNumber, BlockCache.ofCapacity(0));
  }

  /** {@link #open(Vfs, Path, long)}, its checked blocks kept in (and its reads counted by) {@code blockCache}. */
  public static Table open(Vfs vfs, Path file, long fileNumber, BlockCache blockCache) throws IOException {
    Arena arena = Arena.ofShared();
    try (Vfs.ReadableFile opened = vfs.open(file)) {
      MemorySegment mapped = opened.map(arena);
      return new Table(file, fileNumber, arena, mapped, blockCache);
    } catch (IOException | RuntimeException | Error e) {
      arena.close();
      throw e;
    }
  }

  /**
   * The record of key (a value or a tombstone), or null. Consults the Bloom filter first. The
   * returned entry's key is {@code key} itself, so the caller must not change that array later.
   *
   * @throws CorruptionException (naming the file and block offset, and logged) if the block that
   *     could hold the key fails its crc or does not parse
   */
  public @Nullable Entry get(byte[] key) {
    return get(key, filterHash(key));
  }

  /**
   * {@link #get(byte[])} with the key's {@linkplain #filterHash filter hash} already computed: a
   * read that consults many tables hashes its key once, not once per table.
   */
  public @Nullable Entry get(byte[] key, Hash128 keyHash) {
    FoundRecord found = find(key, keyHash);
    return found == null ? null : found.copy(key);
  }

  /**
   * As {@link #get(byte[], Hash128)}, the record left where it lies: its value a view of the
   * block's checked contents (the mapping, or a decompressed copy), valid until {@link #close}.
   */
  public @Nullable FoundRecord find(byte[] key, Hash128 keyHash) {
    if (!mayContain(keyHash)) return null;
    int block = index.find(key);
    if (block == index.blockCount()) return null;
    return readBlock(block, true).find(key);
  }

  /** All records in key order, lazily, one block at a time. */
  public Iterator<Entry> iterator() {
    return new TableIterator(this, null, null);
  }

  /**
   * The records with keys {@code >= fromInclusive} (null: from the first), in key order, lazily:
   * the index finds the one block that can hold the first of them, the block's own seek finds it
   * there, and the iteration reads on one block at a time. Nothing is read before the first
   * {@code hasNext}.
   *
   * @throws CorruptionException (from hasNext/next, naming the file) if a block it reaches is bad
   */
  public Iterator<Entry> iterator(byte @Nullable [] fromInclusive) {
    return new TableIterator(this, fromInclusive, null);
  }

  /**
   * As {@link #iterator(byte[])}, stopping before the first key {@code >= toExclusive} (null: at
   * the end). The bound is compared with the keys where they lie in the file, so the record past
   * the range is never decoded.
   */
  public Iterator<Entry> iterator(byte @Nullable [] fromInclusive, byte @Nullable [] toExclusive) {
    return new TableIterator(this, fromInclusive, toExclusive);
  }

  public long fileNumber() {
    return fileNumber;
  }

  public Path path() {
    return path;
  }

  public long sizeBytes() {
    return file.byteSize();
  }

  public long entryCount() {
    return footer.entryCount();
  }

  /**
   * False if {@code key} is certainly not in this table, as its Bloom filter says; true when it
   * may be (or the table has no filter). The first step of {@link #get}, exposed for the
   * microbenchmarks of the filter probe.
   */
  public boolean mayContain(byte[] key) {
    return mayContain(filterHash(key));
  }

  private boolean mayContain(Hash128 keyHash) {
    return filter == null || filter.mightContain(keyHash);
  }

  /**
   * The hash every table's Bloom filter probes for {@code key} (one seed for all tables:
   * docs/format.md, "Filter"), to compute once per key and pass to {@link #get(byte[], Hash128)}.
   */
  public static Hash128 filterHash(byte[] key) {
    return Murmur3.hash128(key, BloomFilter.SEED);
  }

  /**
   * Why the table's Bloom filter failed its checks at open and is not used (where, which check),
   * or null if it is intact or the table has none. The caller reports it.
   */
  public @Nullable String filterDamage() {
    return filterDamage;
  }

  public long minVersion() {
    return footer.minVersion();
  }

  public long maxVersion() {
    return footer.maxVersion();
  }

  /** Drops its blocks from the cache and unmaps the file (closes its Arena). No method may be called afterwards. */
  @Override
  public void close() {
    blockCache.forget(fileNumber);
    arena.close();
  }

  @Override
  public String toString() {
    return "Table[" + path + ", " + footer.entryCount() + " records in " + index.blockCount() + " blocks]";
  }

  int blockCount() {
    return index.blockCount();
  }

  /**
   * Data block {@code block}, checked: from the cache, or else read, checked (and decompressed)
   * and, if {@code fill}, cached.
   */
  DataBlock readBlock(int block, boolean fill) {
    BlockHandle handle = blockHandle(block);
    MemorySegment contents = blockCache.get(fileNumber, handle.offset());
    if (contents == null) {
      contents = StoredBlock.dataContents(
          file.asSlice(handle.offset(), handle.length()), handle.offset(), footer.formatVersion(), path);
      if (fill) blockCache.put(fileNumber, handle.offset(), contents);
    }
    return DataBlock.open(contents, footer.formatVersion(), handle.offset(), path);
  }

  /** The first data block that can hold {@code key} (its last key is {@code >= key}), or {@link #blockCount}. */
  int findBlock(byte[] key) {
    return index.find(key);
  }

  /** Where data block {@code block} lies in the file. */
  BlockHandle blockHandle(int block) {
    return index.handle(block);
  }

  CorruptionException corruptBlock(int block, String what) {
    return TableCorruption.at(path, blockHandle(block).offset(), what);
  }

  /**
   * Data blocks read through this table's cache: for a table {@linkplain #open(Vfs, Path, long)
   * opened alone}, its own reads since open, which lets tests see the filter spare reads.
   */
  long blockReadCount() {
    return blockCache.reads();
  }
}
