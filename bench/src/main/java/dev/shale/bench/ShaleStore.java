package dev.shale.bench;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Vfs;
import dev.shale.storage.EngineStats;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.WriteStallException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Shale's engine, through its public API only, with its default options but for the three the
 * benchmark sets: the log's fsync interval, the tombstone grace period and the compression.
 */
final class ShaleStore implements BenchStore {
  private final Engine engine;
  private final EngineOptions options;
  // A write the engine refuses as stalled is retried at once, as a client would; its latency
  // includes the wait. The count shows in the notes so a stall is never hidden.
  private final LongAdder stallRetries = new LongAdder();

  private ShaleStore(Engine engine, EngineOptions options) {
    this.engine = engine;
    this.options = options;
  }

  static ShaleStore open(Path directory, EngineBenchConfig config) {
    EngineOptions options = options(config);
    return new ShaleStore(Engine.open(directory, options), options);
  }

  /** The options a run of {@code config} opens the engine with. */
  static EngineOptions options(EngineBenchConfig config) {
    EngineOptions options = options()
        .withSyncIntervalMillis(config.syncIntervalMillis())
        .withTombstoneGraceMillis(config.tombstoneGraceMillis())
        .withCompression(config.compression());
    return config.directReads() ? options.withEnv(options.env().withVfs(Vfs.realDirect())) : options;
  }

  /** The engine's defaults, whose durability matches RocksDB's sync=false with its WAL on. */
  static EngineOptions options() {
    return EngineOptions.defaults();
  }

  @Override
  public List<String> settings() {
    return List.of(
        "sync: " + options.syncMode() + " (log written on every write, fsynced every "
            + options.syncIntervalMillis() + " ms)",
        "memtable: " + Units.bytes(options.memtableSizeBytes()) + ", up to "
            + options.maxImmutableMemtables() + " frozen memtables waiting for flush",
        "block size: " + Units.bytes(options.blockSizeBytes()) + ", compression: "
            + options.compression().optionName() + " (a block stored as it is when that saves under an eighth)",
        "bloom filter: " + options.bloomBitsPerKey() + " bits/key",
        "block cache: " + Units.bytes(options.blockCacheBytes()) + " of checked, decompressed blocks"
            + " in native memory (tables are read with pread; "
            + (options.vfs() == Vfs.realDirect() ? "a get's blocks with O_DIRECT, past the page cache)"
                : "the OS page cache holds their stored bytes)"),
        "write stall: a write waits up to " + options.writeStallTimeoutMillis()
            + " ms for room, then is retried by the benchmark",
        "tombstone grace: " + options.tombstoneGraceMillis() + " ms (a tombstone is kept at least"
            + " this long after its delete, even at the bottom level)");
  }

  @Override
  public void put(byte[] key, byte[] value) {
    while (true) {
      try {
        engine.put(key, value);
        return;
      } catch (WriteStallException e) {
        stallRetries.increment();
      }
    }
  }

  @Override
  public boolean get(byte[] key) {
    Entry entry = engine.get(key);
    return entry != null && !entry.isTombstone();
  }

  @Override
  public void delete(byte[] key) {
    while (true) {
      try {
        engine.delete(key);
        return;
      } catch (WriteStallException e) {
        stallRetries.increment();
      }
    }
  }

  @Override
  public Cursor scan(byte[] startInclusive) {
    EntryIterator records = engine.scan(startInclusive, null, false);
    return new Cursor() {
      @Override
      public boolean next() {
        if (!records.hasNext()) return false;
        records.next();
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
    engine.compact();
  }

  @Override
  public String shape() {
    EngineStats stats = engine.stats();
    String shape = stats.tables() + " tables, " + stats.immutableMemtables() + " frozen memtables";
    long retries = stallRetries.sum();
    return retries == 0 ? shape : shape + ", " + retries + " stalled writes retried";
  }

  @Override
  public void close() {
    engine.close();
  }
}
