package dev.shale.storage.table;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.StorageException;
import dev.shale.storage.Vfs;
import dev.shale.storage.util.Murmur3.Hash128;
import dev.shale.storage.util.Murmur3;
import dev.shale.storage.util.NativeMemory;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * An open table (docs/format.md, "Table"): read with {@code pread}, immutable, thread safe.
 *
 * <p>Lifetime: {@link #close} closes the file; the caller makes sure no read or iterator of this
 * table is in flight then, and calls nothing afterwards (the engine reference-counts tables).
 */
public final class Table implements AutoCloseable {
  /*
   * Design. The file stays open (one descriptor, advised POSIX_FADV_RANDOM so the kernel reads no
   * more than each read asks for). The filter and the index are read at open into native memory
   * of the table's Arena (about 2% of the table with 100-byte values: 10 bits a key, and two keys
   * a block, its last and, from format 4, its first), checked there once (crc and structure) and
   * then searched there: every read consults them, so they stay where no read waits for the disk,
   * as LevelDB's and RocksDB's table readers keep them. A get probes the Bloom filter,
   * binary-searches the index for the one block that can hold the key (none, if the key is below
   * that block's first key), takes that block from the engine's BlockCache or else reads it with
   * one pread of exactly its bytes, checks its crc, decompresses it and offers it to the cache,
   * then searches it (DataBlock) and returns the record in place in the block, which the read's
   * BlockPins hold until it has copied what it needs. So a get costs at most one I/O, of one
   * block. Iterators (scans, compactions) read blocks in order through a read-ahead window of
   * their own (SequentialBlocks): one large read for many blocks.
   */

  private static final System.Logger LOG = System.getLogger(Table.class.getName());

  private final Path path;
  private final long fileNumber;
  private final Vfs.ReadableFile file;
  private final long sizeBytes;
  private final Arena arena; // the index and filter, read at open, freed at close
  private final Footer footer;
  private final IndexBlock index;
  private final @Nullable BloomFilter filter; // null when the table was written without one, or it is damaged
  private final @Nullable String filterDamage; // why the table's filter is not used, or null
  private final long residentBytes; // the index and filter, in the arena
  // The engine's, shared by all its tables; it also counts their block reads (EngineStats.blockReads).
  private final BlockCache blockCache;

  private Table(Path path, long fileNumber, Vfs.ReadableFile file, long sizeBytes, Arena arena, BlockCache blockCache)
      throws IOException {
    this.blockCache = blockCache;
    this.path = path;
    this.fileNumber = fileNumber;
    this.file = file;
    this.sizeBytes = sizeBytes;
    this.arena = arena;
    this.footer = Footer.read(file, sizeBytes, path);
    this.index = IndexBlock.open(inMemory(footer.index()), footer, path);
    BloomFilter opened = null;
    String damage = null;
    if (footer.filter().length() > 0) {
      // A filter only spares reads (docs/format.md, "Filter"): without it every get reads the one
      // block that can hold the key, so a damaged filter costs speed, never data.
      try {
        opened = BloomFilter.open(inMemory(footer.filter()), footer.filter().offset(), path);
      } catch (CorruptionException e) {
        damage = e.problem();
      }
    }
    this.filter = opened;
    this.filterDamage = damage;
    this.residentBytes = footer.index().length() + footer.filter().length();
    blockCache.addResident(residentBytes);
  }

  // The block read into native memory of the table's arena, freed when the table closes.
  private MemorySegment inMemory(BlockHandle block) {
    MemorySegment copy = arena.allocate(block.length(), 8);
    readStored(copy, block.offset());
    return copy;
  }

  /**
   * Opens the file and checks its footer, index and filter (CorruptionException naming the file if
   * the footer or index is bad; a bad filter is left unused, see {@link #filterDamage}).
   */
  public static Table open(Vfs vfs, Path file, long fileNumber) throws IOException {
    return open(vfs, file, fileNumber, BlockCache.ofCapacity(0));
  }

  /** {@link #open(Vfs, Path, long)}, its checked blocks kept in (and its reads counted by) {@code blockCache}. */
  public static Table open(Vfs vfs, Path path, long fileNumber, BlockCache blockCache) throws IOException {
    Vfs.ReadableFile file = vfs.open(path);
    Arena arena = Arena.ofShared();
    try {
      file.adviseRandom();
      return new Table(path, fileNumber, file, file.size(), arena, blockCache);
    } catch (IOException | RuntimeException | Error e) {
      arena.close();
      closeQuietly(file, path);
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
    try (BlockPins pins = new BlockPins()) {
      FoundRecord found = find(key, keyHash, pins);
      return found == null ? null : found.copy(key);
    }
  }

  /**
   * {@link #get(byte[], Hash128)}, the record left where it lies: its value a view of the block's
   * checked contents, which {@code pins} hold (the block is added to them) until they close.
   * Through {@link BlockPins#cachedOnly} pins a block not in the cache is not read: null, and the
   * pins marked.
   */
  public @Nullable FoundRecord find(byte[] key, Hash128 keyHash, BlockPins pins) {
    if (!mayContain(keyHash)) return null;
    int block = index.find(key);
    if (block == index.blockCount()) return null;
    // Below the block's first key the key is in no block: nothing to read (docs/format.md, "Index").
    if (index.hasFirstKeys() && index.compareFirstKey(block, key) > 0) return null;
    BlockHandle handle = blockHandle(block);
    LoadedBlock loaded = pins.isCachedOnly() ? blockCache.acquireUncounted(fileNumber, handle.offset()) : loadBlock(handle);
    if (loaded == null) {
      pins.markMissedCache();
      return null;
    }
    pins.add(loaded);
    return DataBlock.open(loaded.contents(), footer.formatVersion(), handle.offset(), path).find(key);
  }

  /** All records in key order, lazily, one block at a time, read ahead as a scan does. */
  public PeekableRecords iterator() {
    return new TableIterator(this, null, null, ReadAhead.SCAN);
  }

  /**
   * The records with keys {@code >= fromInclusive} (null: from the first), in key order, lazily:
   * the index finds the one block that can hold the first of them, the block's own seek finds it
   * there, and the iteration reads on one block at a time. Nothing is read before the first
   * {@code hasNext}.
   *
   * @throws CorruptionException (from hasNext/next, naming the file) if a block it reaches is bad
   */
  public PeekableRecords iterator(byte @Nullable [] fromInclusive) {
    return new TableIterator(this, fromInclusive, null, ReadAhead.SCAN);
  }

  /** {@link #iterator(byte[], byte[], ReadAhead)}, reading ahead as a scan does. */
  public PeekableRecords iterator(byte @Nullable [] fromInclusive, byte @Nullable [] toExclusive) {
    return new TableIterator(this, fromInclusive, toExclusive, ReadAhead.SCAN);
  }

  /**
   * As {@link #iterator(byte[])}, stopping before the first key {@code >= toExclusive} (null: at
   * the end), reading ahead as {@code readAhead} says. The bound is compared with the keys where
   * they lie in the block, so the record past the range is never decoded. The caller closes the
   * iterator (running out closes it too): it holds native memory until then.
   */
  public PeekableRecords iterator(byte @Nullable [] fromInclusive, byte @Nullable [] toExclusive, ReadAhead readAhead) {
    return new TableIterator(this, fromInclusive, toExclusive, readAhead);
  }

  public long fileNumber() {
    return fileNumber;
  }

  public Path path() {
    return path;
  }

  public long sizeBytes() {
    return sizeBytes;
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

  /** Drops its blocks from the cache, frees its index and filter, and closes the file. No method may be called afterwards. */
  @Override
  public void close() {
    for (int block = 0; block < index.blockCount(); block++) blockCache.forget(fileNumber, blockHandle(block).offset());
    blockCache.addResident(-residentBytes);
    arena.close();
    closeQuietly(file, path);
  }

  @Override
  public String toString() {
    return "Table[" + path + ", " + footer.entryCount() + " records in " + index.blockCount() + " blocks]";
  }

  int blockCount() {
    return index.blockCount();
  }

  /** Data block {@code handle} with a reference for the caller: from the cache, or else read, checked and offered to it. */
  private LoadedBlock loadBlock(BlockHandle handle) {
    LoadedBlock cached = blockCache.acquire(fileNumber, handle.offset());
    if (cached != null) return cached;
    MemorySegment stored = NativeMemory.allocate(handle.length());
    try {
      readStored(stored, handle.offset(), true);
    } catch (RuntimeException | Error e) {
      NativeMemory.free(stored);
      throw e;
    }
    LoadedBlock loaded = StoredBlock.load(stored, handle.offset(), footer.formatVersion(), path, blockCache.heldBytesCounter());
    blockCache.offer(fileNumber, handle.offset(), loaded);
    return loaded;
  }

  /** Data block {@code handle} from the cache, with a reference for the caller; null if it is not cached. */
  @Nullable LoadedBlock cachedBlock(BlockHandle handle) {
    return blockCache.acquire(fileNumber, handle.offset());
  }

  /**
   * Fills {@code target} with the file's bytes at {@code offset}: a CorruptionException if the file
   * ends first (the index or footer promised more), a StorageException naming the file if the read
   * fails.
   */
  void readStored(MemorySegment target, long offset) {
    readStored(target, offset, false);
  }

  // pointRead: one block for a get, which the file may read past the page cache (Vfs.ReadableFile.readBlock).
  private void readStored(MemorySegment target, long offset, boolean pointRead) {
    try {
      if (pointRead) {
        file.readBlock(target, offset);
      } else {
        file.readFully(target, offset);
      }
    } catch (EOFException e) {
      throw TableCorruption.at(path, offset, target.byteSize() + " bytes run past the end of the file");
    } catch (IOException e) {
      throw new StorageException(path + ": reading " + target.byteSize() + " bytes at offset " + offset + " failed: "
          + e.getMessage(), e);
    }
  }

  /** Asks for {@code length} bytes at {@code offset} to be read into the page cache now (advice). */
  void prefetch(long offset, long length) {
    file.prefetch(offset, length);
  }

  int formatVersion() {
    return footer.formatVersion();
  }

  /** Where the data blocks end: the filter, or the index, starts there. */
  long dataEnd() {
    return footer.dataEnd();
  }

  /** The first data block that can hold {@code key} (its last key is {@code >= key}), or {@link #blockCount}. */
  int findBlock(byte[] key) {
    return index.find(key);
  }

  /**
   * True if the index shows, without a read, that data block {@code block} holds no key below
   * {@code key}: its first key is {@code >= key}. False when it may, or the table (format_version
   * 1 to 3) has no first keys in its index.
   */
  boolean blockStartsAtOrAfter(int block, byte[] key) {
    return index.hasFirstKeys() && index.compareFirstKey(block, key) >= 0;
  }

  /** The footer, as read and checked at open. */
  Footer footer() {
    return footer;
  }

  /** The index, as read and checked at open. */
  IndexBlock index() {
    return index;
  }

  /** Where data block {@code block} lies in the file. */
  BlockHandle blockHandle(int block) {
    return index.handle(block);
  }

  CorruptionException corruptBlock(int block, String what) {
    return TableCorruption.at(path, blockHandle(block).offset(), what);
  }

  private static void closeQuietly(Vfs.ReadableFile file, Path path) {
    try {
      file.close();
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "closing table " + path + " failed: " + e);
    }
  }

  /**
   * Data blocks read through this table's cache: for a table {@linkplain #open(Vfs, Path, long)
   * opened alone}, its own reads since open, which lets tests see the filter spare reads.
   */
  long blockReadCount() {
    return blockCache.reads();
  }
}
