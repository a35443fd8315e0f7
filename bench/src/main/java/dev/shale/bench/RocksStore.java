package dev.shale.bench;

import dev.shale.storage.Compression;
import dev.shale.storage.EngineOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompactionStyle;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * RocksDB through rocksdbjni, configured to match Shale's engine where a setting has a
 * counterpart (memtable size and count, block size, Bloom bits, compression, block cache size,
 * durability) and left at RocksDB's defaults elsewhere (leveled compaction and its triggers, two
 * background jobs).
 */
final class RocksStore implements BenchStore {
  static final int MAX_LEVELS = 7;

  private final RocksDB db;
  private final Options options;
  private final LRUCache cache;
  private final BloomFilter bloom;
  private final WriteOptions writeOptions;
  private final ReadOptions readOptions;
  private final EngineOptions matched; // the Shale options this store's settings match

  private RocksStore(RocksDB db, Options options, LRUCache cache, BloomFilter bloom, EngineOptions matched) {
    this.matched = matched;
    this.db = db;
    this.options = options;
    this.cache = cache;
    this.bloom = bloom;
    // sync=false with the WAL on: every write reaches the OS (survives kill -9), none is
    // fsynced: the durability of Shale's SyncMode.INTERVAL.
    this.writeOptions = new WriteOptions().setSync(false).setDisableWAL(false);
    this.readOptions = new ReadOptions();
  }

  static RocksStore open(Path directory, EngineBenchConfig config) {
    RocksDB.loadLibrary();
    EngineOptions shale = ShaleStore.options(config);
    LRUCache cache = new LRUCache(shale.blockCacheBytes());
    BloomFilter bloom = new BloomFilter(shale.bloomBitsPerKey());
    BlockBasedTableConfig table = new BlockBasedTableConfig()
        .setBlockSize(shale.blockSizeBytes())
        .setFilterPolicy(bloom)
        .setBlockCache(cache);
    Options options = new Options()
        .setCreateIfMissing(true)
        .setWriteBufferSize(shale.memtableSizeBytes())
        .setMaxWriteBufferNumber(1 + shale.maxImmutableMemtables())
        .setCompressionType(compressionType(shale.compression()))
        .setBottommostCompressionType(compressionType(shale.compression()))
        .setCompactionStyle(CompactionStyle.LEVEL)
        .setTableFormatConfig(table)
        // Reads past the page cache, as Shale's gets with O_DIRECT; flushes and compactions
        // write through it, as Shale's do (use_direct_io_for_flush_and_compaction off).
        .setUseDirectReads(config.directReads());
    try {
      return new RocksStore(RocksDB.open(options, directory.toString()), options, cache, bloom, shale);
    } catch (RocksDBException | RuntimeException e) {
      options.close();
      bloom.close();
      cache.close();
      throw new IllegalStateException("RocksDB failed to open " + directory + ": " + e.getMessage(), e);
    }
  }

  /** RocksDB's compression type for each of Shale's. */
  private static CompressionType compressionType(Compression compression) {
    return switch (compression) {
      case NONE -> CompressionType.NO_COMPRESSION;
      case LZ4 -> CompressionType.LZ4_COMPRESSION;
      case ZSTD -> CompressionType.ZSTD_COMPRESSION;
    };
  }

  @Override
  public List<String> settings() {
    return List.of(
        "rocksdbjni: " + RocksDB.rocksdbVersion(),
        "WAL on, WriteOptions.sync=false (written on every write, never fsynced by the write)",
        "memtable (write_buffer_size): " + Units.bytes(options.writeBufferSize())
            + " = Shale's, max_write_buffer_number " + options.maxWriteBufferNumber()
            + " = Shale's 1 active + " + (options.maxWriteBufferNumber() - 1) + " frozen",
        "block size: " + Units.bytes(matched.blockSizeBytes()) + ", compression: "
            + matched.compression().optionName() + " at every level (as Shale)",
        "bloom filter: " + matched.bloomBitsPerKey() + " bits/key (full filters)",
        "block cache: LRU " + Units.bytes(matched.blockCacheBytes()) + " (Shale's size)"
            + (options.useDirectReads() ? "; reads with O_DIRECT (use_direct_reads)" : ""),
        "compaction: leveled, defaults: L0 trigger " + options.level0FileNumCompactionTrigger()
            + ", slowdown " + options.level0SlowdownWritesTrigger()
            + ", stop " + options.level0StopWritesTrigger()
            + ", L1 target " + Units.bytes(options.maxBytesForLevelBase())
            + ", x" + (long) options.maxBytesForLevelMultiplier()
            + " per level, dynamic level bytes " + options.levelCompactionDynamicLevelBytes()
            + ", file size " + Units.bytes(options.targetFileSizeBase())
            + ", background jobs " + options.maxBackgroundJobs(),
        "tombstones: dropped once compaction brings them to the bottom level (no grace period;"
            + " --tombstone-grace is Shale's only)");
  }

  @Override
  public void put(byte[] key, byte[] value) {
    try {
      db.put(writeOptions, key, value);
    } catch (RocksDBException e) {
      throw failed("put", e);
    }
  }

  @Override
  public boolean get(byte[] key) {
    try {
      return db.get(readOptions, key) != null;
    } catch (RocksDBException e) {
      throw failed("get", e);
    }
  }

  @Override
  public void delete(byte[] key) {
    try {
      db.delete(writeOptions, key);
    } catch (RocksDBException e) {
      throw failed("delete", e);
    }
  }

  @Override
  public Cursor scan(byte[] startInclusive) {
    RocksIterator records = db.newIterator(readOptions);
    records.seek(startInclusive);
    return new Cursor() {
      private boolean started;

      @Override
      public boolean next() {
        if (started) records.next();
        started = true;
        if (!records.isValid()) {
          checkStatus(records);
          return false;
        }
        // Copy key and value into the heap, as Shale's iterator does for every record.
        records.key();
        records.value();
        return true;
      }

      @Override
      public void close() {
        records.close();
      }
    };
  }

  @Override
  public void compact() {
    try {
      db.compactRange();
    } catch (RocksDBException e) {
      throw failed("compactRange", e);
    }
  }

  @Override
  public String shape() {
    List<String> files = new ArrayList<>();
    try {
      for (int level = 0; level < MAX_LEVELS; level++) {
        files.add(db.getProperty("rocksdb.num-files-at-level" + level));
      }
    } catch (RocksDBException e) {
      return "files per level unknown: " + e.getMessage();
    }
    return "files per level L0..L6: " + String.join("/", files);
  }

  @Override
  public void close() {
    db.close();
    writeOptions.close();
    readOptions.close();
    options.close();
    bloom.close();
    cache.close();
  }

  private static void checkStatus(RocksIterator records) {
    try {
      records.status();
    } catch (RocksDBException e) {
      throw failed("iterator", e);
    }
  }

  private static IllegalStateException failed(String call, RocksDBException e) {
    return new IllegalStateException("RocksDB " + call + " failed: " + e.getMessage(), e);
  }
}
