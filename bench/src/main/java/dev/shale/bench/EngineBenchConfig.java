package dev.shale.bench;

import dev.shale.storage.Compression;
import dev.shale.storage.EngineOptions;
import java.nio.file.Path;
import java.util.List;

/**
 * The settings of one benchmark run, checked when made: a bad value gives an
 * IllegalArgumentException whose message names the command-line option.
 *
 * @param engines which engines to measure
 * @param keys the size of the key space (and the number of operations of each fill)
 * @param valueSizeBytes the size of every value written
 * @param workloads the workloads, in run order (repeats allowed)
 * @param reads operations of each read workload (readrandom, readmissing, readcompacted)
 * @param seeks operations of seekrandom (each reads up to 100 records)
 * @param threads threads issuing operations at once
 * @param directory where each run makes its own directory (and in it one per engine)
 * @param jsonFile where to write the JSON report, or null for none
 * @param seed the seed of every random choice (keys, values), so runs can be repeated
 * @param keepData whether to leave the stores on disk after the run
 * @param syncIntervalMillis how often Shale fsyncs its log ({@code SyncMode.INTERVAL}); the
 *     default is the engine's, and a long one takes the fsyncs out of the picture to see what
 *     they cost (RocksDB with sync=false never fsyncs its log)
 * @param tombstoneGraceMillis Shale's {@code EngineOptions.tombstoneGraceMillis}: the default is
 *     the engine's (long, for replication); 0 drops a tombstone at the first compaction that may,
 *     as RocksDB does, so that deletes and the scans after them compare the same work
 * @param compression how both engines compress their tables' data blocks
 * @param values what the values written are made of: random bytes, or JSON-like text that
 *     compresses, so that compression and space mean something
 * @param memoryLimitBytes the memory this process gets for the run, the page cache of its files
 *     included: it runs in a memory cgroup of that limit ({@link MemoryCgroup}), so that a store
 *     larger than it is read from the disk; 0: no limit
 * @param directReads whether both engines read the blocks of point reads with O_DIRECT, past the
 *     page cache (Shale's {@code Vfs.realDirect}, RocksDB's {@code use_direct_reads}), as a node
 *     does under {@code --memory}
 */
public record EngineBenchConfig(
    EngineChoice engines,
    long keys,
    int valueSizeBytes,
    List<Workload> workloads,
    long reads,
    long seeks,
    int threads,
    Path directory,
    Path jsonFile,
    long seed,
    boolean keepData,
    long syncIntervalMillis,
    long tombstoneGraceMillis,
    Compression compression,
    ValueKind values,
    long memoryLimitBytes,
    boolean directReads) {

  /** The largest value: the 16 MiB the HTTP API accepts. */
  public static final int MAX_VALUE_SIZE_BYTES = 16 << 20;
  /** Keys are 16 decimal digits, so the key space stops below 10^16. */
  public static final long MAX_KEYS = KeyFormat.MAX_KEYS;
  public static final int MAX_THREADS = 1024;

  public EngineBenchConfig {
    if (engines == null) throw new IllegalArgumentException("--engine is required");
    if (keys < 1 || keys > MAX_KEYS) {
      throw new IllegalArgumentException("--keys must be in [1, " + MAX_KEYS + "]: " + keys);
    }
    if (valueSizeBytes < 1 || valueSizeBytes > MAX_VALUE_SIZE_BYTES) {
      throw new IllegalArgumentException(
          "--value-size must be in [1, " + MAX_VALUE_SIZE_BYTES + "] bytes: " + valueSizeBytes);
    }
    if (workloads == null || workloads.isEmpty()) {
      throw new IllegalArgumentException("--workloads must name at least one workload");
    }
    workloads = List.copyOf(workloads);
    if (reads < 1) throw new IllegalArgumentException("--reads must be >= 1: " + reads);
    if (seeks < 1) throw new IllegalArgumentException("--seeks must be >= 1: " + seeks);
    if (threads < 1 || threads > MAX_THREADS) {
      throw new IllegalArgumentException("--threads must be in [1, " + MAX_THREADS + "]: " + threads);
    }
    if (directory == null) throw new IllegalArgumentException("--dir is required");
    if (syncIntervalMillis < 1) {
      throw new IllegalArgumentException("--sync-interval must be >= 1 ms: " + syncIntervalMillis);
    }
    if (tombstoneGraceMillis < 0) {
      throw new IllegalArgumentException("--tombstone-grace must be >= 0 ms: " + tombstoneGraceMillis);
    }
    if (compression == null) throw new IllegalArgumentException("--compression is required");
    if (values == null) throw new IllegalArgumentException("--values is required");
    if (memoryLimitBytes != 0 && memoryLimitBytes < MIN_MEMORY_LIMIT_BYTES) {
      throw new IllegalArgumentException("--memory-limit must be 0 (none) or at least 64m: " + memoryLimitBytes);
    }
  }

  /** A run with Shale's default log fsync interval, tombstone grace period and compression, on random values. */
  public EngineBenchConfig(EngineChoice engines, long keys, int valueSizeBytes, List<Workload> workloads,
      long reads, long seeks, int threads, Path directory, Path jsonFile, long seed, boolean keepData) {
    this(engines, keys, valueSizeBytes, workloads, reads, seeks, threads, directory, jsonFile, seed, keepData,
        DEFAULT_SYNC_INTERVAL_MILLIS, DEFAULT_TOMBSTONE_GRACE_MILLIS, DEFAULT_COMPRESSION, ValueKind.RANDOM, 0, false);
  }

  /** The smallest --memory-limit: a JVM and an engine need some memory of their own. */
  public static final long MIN_MEMORY_LIMIT_BYTES = 64L << 20;

  /** Shale's default compression, the server's too. */
  public static final Compression DEFAULT_COMPRESSION = EngineOptions.defaults().compression();

  /** Shale's default log fsync interval, the server's too. */
  public static final long DEFAULT_SYNC_INTERVAL_MILLIS = EngineOptions.defaults().syncIntervalMillis();

  /** Shale's default tombstone grace period, the server's too. */
  public static final long DEFAULT_TOMBSTONE_GRACE_MILLIS = EngineOptions.defaults().tombstoneGraceMillis();

  /** The default number of reads: as many as keys, like db_bench. */
  public static long defaultReads(long keys) {
    return keys;
  }

  /** The default number of seeks: a tenth of the keys (each reads 100 records), at least 1. */
  public static long defaultSeeks(long keys) {
    return Math.max(1, keys / 10);
  }
}
