package dev.shale.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The engine benchmark, in the spirit of RocksDB's db_bench: the same workloads, key format,
 * value size, durability and threads against Shale's engine and against RocksDB, one engine
 * after the other in this JVM, each in a fresh directory on the same disk.
 */
public final class EngineBench {
  private EngineBench() {}

  /**
   * Runs the benchmark, printing to {@code out}. Returns true when every workload ran or was
   * reported unsupported, false when one failed (the report says which and why).
   *
   * @throws IOException if the run's directory or the JSON file cannot be written
   */
  public static boolean run(EngineBenchConfig config, PrintWriter out) throws IOException {
    if (config.memoryLimitBytes() == 0) return runHere(config, out);
    // Entered before the first file is written: the page cache of every store counts from the start.
    try (MemoryCgroup cgroup = MemoryCgroup.create("shale-bench-" + ProcessHandle.current().pid(), config.memoryLimitBytes())) {
      cgroup.enterThisProcess();
      out.println("memory: this JVM runs in the memory cgroup " + cgroup.directory() + ", limited to "
          + Units.bytes(cgroup.limitBytes()) + " (its heap, native memory and the page cache of the stores' files)");
      boolean ok = runHere(config, out);
      out.println("memory: the cgroup's peak " + cgroup.peakBytes().map(Units::bytes).orElse("unknown") + ", OOM kills "
          + cgroup.oomKills());
      out.flush();
      return ok;
    }
  }

  private static boolean runHere(EngineBenchConfig config, PrintWriter out) throws IOException {
    Files.createDirectories(config.directory());
    Path runDirectory = Files.createTempDirectory(config.directory(), "run-");
    printHeader(config, runDirectory, out);
    ValueSource values = new ValueSource(config.valueSizeBytes(), config.seed(), config.values());
    List<WorkloadResult> results = new ArrayList<>();
    try {
      for (BenchEngine engine : config.engines().engines()) {
        out.println();
        out.println(engine.reportName() + ":");
        Path directory = runDirectory.resolve(engine.reportName());
        results.addAll(new EngineRun(engine, config, values, directory, out).run());
        if (!config.keepData()) EngineRun.deleteDirectory(directory);
      }
    } finally {
      if (!config.keepData()) EngineRun.deleteDirectory(runDirectory);
    }
    ResultTable.print(out, results);
    printFooter(results, config, out);
    if (config.jsonFile() != null) {
      JsonReport.write(config.jsonFile(), config, results);
      out.println("JSON report: " + config.jsonFile());
    }
    out.flush();
    return results.stream().noneMatch(r -> r.status() == WorkloadResult.Status.FAILED);
  }

  private static void printHeader(EngineBenchConfig config, Path runDirectory, PrintWriter out) {
    Runtime runtime = Runtime.getRuntime();
    out.println("shale engine benchmark, " + Instant.now());
    out.println("engines: " + config.engines().engines().stream().map(BenchEngine::reportName).collect(Collectors.joining(", "))
        + "; keys: " + config.keys() + " of " + KeyFormat.KEY_BYTES + " bytes; values: "
        + config.valueSizeBytes() + " bytes of " + config.values().description() + "; compression: "
        + config.compression().optionName() + " (both engines); threads: " + config.threads()
        + "; reads: " + config.reads() + "; seeks: " + config.seeks() + "; seed: " + config.seed());
    out.println("workloads: " + config.workloads().stream().map(Workload::cliName).collect(Collectors.joining(",")));
    out.println("data: " + runDirectory.toAbsolutePath() + (config.keepData() ? " (kept)" : " (deleted at the end)"));
    out.println("JVM: " + System.getProperty("java.vm.name") + " " + Runtime.version() + ", max heap "
        + Units.bytes(runtime.maxMemory()) + ", " + runtime.availableProcessors() + " CPUs");
    if (config.engines().engines().contains(BenchEngine.SHALE)) out.println(tombstoneLine(config));
    out.println("durability: the same for both: every write reaches the OS before it is acknowledged"
        + " (Shale SyncMode.INTERVAL, RocksDB sync=false with its WAL on): it survives a crash of"
        + " the process (kill -9), not a power loss.");
    out.println("latency: closed loop (each thread waits for its operation, as db_bench), per operation;"
        + " w-amp: bytes written to disk (/proc/self/io write_bytes, else the files' growth) / key+value bytes written.");
  }

  /** What the run keeps of deletes: it decides the work of a scan after deleterandom, and the space. */
  static String tombstoneLine(EngineBenchConfig config) {
    long grace = config.tombstoneGraceMillis();
    String meaning = grace == 0
        ? "dropped at the first compaction that may, as RocksDB does"
        : "kept at least that long after their delete, even at the bottom level; RocksDB drops them there";
    String source = grace == EngineBenchConfig.DEFAULT_TOMBSTONE_GRACE_MILLIS ? ", the engine's default" : "";
    return "shale tombstone grace: " + grace + " ms" + source + " (--tombstone-grace): tombstones " + meaning;
  }

  private static void printFooter(List<WorkloadResult> results, EngineBenchConfig config, PrintWriter out) {
    long largest = results.stream().filter(WorkloadResult::ok).mapToLong(WorkloadResult::spaceBytes).max().orElse(0);
    long heap = Runtime.getRuntime().maxMemory();
    out.println();
    out.printf(Locale.ROOT, "largest store: %s, %.1f times the max heap (%s)", Units.bytes(largest), (double) largest / heap,
        Units.bytes(heap));
    long limit = config.memoryLimitBytes();
    if (limit > 0) out.printf(Locale.ROOT, ", %.1f times the memory limit (%s)", (double) largest / limit, Units.bytes(limit));
    out.println();
  }
}
