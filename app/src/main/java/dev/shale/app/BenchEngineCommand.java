package dev.shale.app;

import dev.shale.bench.EngineBench;
import dev.shale.bench.EngineBenchConfig;
import dev.shale.bench.EngineChoice;
import dev.shale.bench.ValueKind;
import dev.shale.bench.Workload;
import dev.shale.storage.Compression;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code shale bench engine}: Shale's engine next to RocksDB, in one run (db_bench style). */
@Command(
    name = "engine",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Benchmarks Shale's storage engine against RocksDB, in this JVM.",
      "Runs the same workloads against each engine (RocksDB through rocksdbjni), one after the",
      "other, each in a fresh directory under --dir, with the same keys (16-byte zero-padded",
      "decimal), values (--values), compression (--compression), block cache size, threads and",
      "durability (written to the OS on every write: survives kill -9, not a power loss).",
      "Prints ops/s, p50/p99/p99.9 latency, write amplification and space per workload and",
      "engine, and the ratio shale/rocksdb. Exit status 1 if a workload failed (unsupported",
      "ones are reported and do not count), 2 for a usage error.",
      ""
    },
    footer = {
      "",
      "Workloads (run in the order given; fillseq and fillrandom start from an empty store):",
      "  fillseq       n puts in key order            fillrandom  n puts, every key once, random order",
      "  overwrite     n puts of random keys          readrandom  gets of random existing keys",
      "  readmissing   gets of absent keys            readcompacted  full compaction, then readrandom",
      "  seekrandom    seek a random key, next 100    deleterandom   n deletes of random keys",
      "  scanall       one full scan (after deleterandom: the scan skips the tombstones)",
      "Sizes are bytes, optionally with k, m or g (KiB, MiB, GiB). Durations are milliseconds."
    })
final class BenchEngineCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--engine", paramLabel = "shale|rocksdb|both", required = true,
      description = "Which engines to measure.")
  String engine;

  @Option(names = "--keys", paramLabel = "<n>", required = true,
      description = "Size of the key space: each fill writes n keys.")
  long keys;

  @Option(names = "--value-size", paramLabel = "<bytes>", required = true,
      converter = ByteSizeConverter.class,
      description = "Size of every value (at most 16m).")
  long valueSizeBytes;

  @Option(names = "--workloads", paramLabel = "<a,b,...>", split = ",",
      description = "Workloads to run, in order. Default: all, in the order listed below.")
  List<String> workloads;

  @Option(names = "--json", paramLabel = "<file>",
      description = "Also write the results to this file: a JSON array, one object per engine "
          + "and workload (engine, workload, status, ops_per_sec, p50_us, p99_us, p999_us, ...).")
  Path json;

  @Option(names = "--dir", paramLabel = "<dir>", defaultValue = "./bench-data",
      description = "Each run makes a fresh directory in here, and one per engine in that; "
          + "deleted at the end unless --keep-data. Default: ${DEFAULT-VALUE}.")
  Path dir;

  @Option(names = "--threads", paramLabel = "<n>", defaultValue = "1",
      description = "Threads issuing operations at once. Default: ${DEFAULT-VALUE}.")
  int threads;

  @Option(names = "--reads", paramLabel = "<n>",
      description = "Operations of each read workload. Default: --keys.")
  Long reads;

  @Option(names = "--seeks", paramLabel = "<n>",
      description = "Seeks of seekrandom (each reads 100 records). Default: --keys / 10.")
  Long seeks;

  @Option(names = "--seed", paramLabel = "<n>", defaultValue = "1",
      description = "Seed of the random keys and values. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--keep-data", description = "Leave the stores on disk after the run.")
  boolean keepData;

  @Option(names = "--sync-interval", paramLabel = "<ms>", defaultValue = "200",
      description = "How often Shale fsyncs its log (a write returns once the log has it, as "
          + "RocksDB's with sync=false, which never fsyncs its log). A long interval shows what "
          + "the fsyncs cost. Default: ${DEFAULT-VALUE}, the server's.")
  long syncIntervalMillis;

  @Option(names = "--tombstone-grace", paramLabel = "<ms>", defaultValue = "86400000",
      description = "Shale's tombstone grace period: the shortest time a delete's tombstone is "
          + "kept, even by a compaction at the bottom level (replication needs it on a node). 0: "
          + "a tombstone goes at the first compaction that may drop it, as RocksDB's does, so "
          + "deleterandom's space and the scanall after it compare the same work. No effect on "
          + "RocksDB, which has no grace period. Default: ${DEFAULT-VALUE} (a day), the engine's.")
  long tombstoneGraceMillis;

  @Option(names = "--compression", paramLabel = "none|lz4|zstd", defaultValue = "lz4",
      converter = CompressionConverter.class,
      description = "How both engines compress their tables' data blocks (RocksDB at every level). "
          + "Default: ${DEFAULT-VALUE}, Shale's.")
  Compression compression;

  @Option(names = "--values", paramLabel = "random|text", defaultValue = "random",
      description = "What values are made of: random (incompressible) bytes, or JSON-like text "
          + "that compresses to about half, so that compression and space mean something. "
          + "Default: ${DEFAULT-VALUE}.")
  String values;

  @Option(names = "--memory-limit", paramLabel = "<size>", defaultValue = "0",
      converter = ByteSizeConverter.class,
      description = "Run in a memory cgroup of this size, made under this process's own (root, or a delegated "
          + "cgroup): the JVM and the page cache of the stores' files count against it, so a store larger than it is "
          + "read from the disk, as on a host with that much memory. Give the JVM a heap well inside it "
          + "(SHALE_JAVA_OPTS=-Xmx...). 0: none. Default: ${DEFAULT-VALUE}.")
  long memoryLimitBytes;

  @Option(names = "--direct-reads",
      description = "Both engines read the blocks of point reads with O_DIRECT, past the page cache (Shale as "
          + "`shale server --direct-reads` does, RocksDB with use_direct_reads), so that their block caches are "
          + "their only caches of point reads: with --memory-limit, a larger-than-memory store read as a node "
          + "under --memory reads it. Scans, compactions and writes stay buffered in both.")
  boolean directReads;

  @Override
  public Integer call() throws IOException {
    EngineBenchConfig config = config();
    PrintWriter out = spec.commandLine().getOut();
    return EngineBench.run(config, out) ? 0 : Main.FAILED;
  }

  /** The run's settings, or a usage error naming the bad option. */
  EngineBenchConfig config() {
    try {
      if (valueSizeBytes > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "--value-size must be at most " + EngineBenchConfig.MAX_VALUE_SIZE_BYTES + " bytes: " + valueSizeBytes);
      }
      return new EngineBenchConfig(EngineChoice.named(engine), keys, (int) valueSizeBytes,
          workloadList(), reads != null ? reads : EngineBenchConfig.defaultReads(keys),
          seeks != null ? seeks : EngineBenchConfig.defaultSeeks(keys), threads, dir, json, seed,
          keepData, syncIntervalMillis, tombstoneGraceMillis, compression, ValueKind.named(values), memoryLimitBytes,
          directReads);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private List<Workload> workloadList() {
    if (workloads == null) return Workload.ALL;
    List<Workload> list = new ArrayList<>();
    for (String name : workloads) list.add(Workload.named(name));
    return list;
  }
}
