package dev.shale.bench;

import dev.shale.bench.OperationLoop.Measured;
import dev.shale.bench.WorkloadResult.Status;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Runs the configured workloads, in order, on one engine in its own directory, the way db_bench
 * does: fillseq and fillrandom start from an empty store; every other workload works on the
 * store as the previous ones left it (one not preceded by a fill gets an untimed fillrandom
 * first). A workload the engine does not support, or that fails, is reported and the run goes on.
 */
final class EngineRun {
  private final String engineName;
  private final Function<Path, BenchStore> opener;
  private final EngineBenchConfig config;
  private final Workloads workloads;
  private final Path directory;
  private final PrintWriter out;
  /** Operations of the warm-up when the memtable bounds below allow (and --keys is larger). */
  static final long WARMUP_OPS = 100_000;
  /**
   * Memtables' worth of puts the warm-up writes at least. Both engines' memtables are the same
   * size; three of them make both switch memtables and flush during the warm-up, so that the JIT
   * has compiled those paths too: with 100,000 puts of 100 bytes (less than one memtable), Shale's
   * first workload spent a third of its CPU in C2 recompiling the paths a memtable switch takes
   * (docs/perf/engine.md, "Table format 3").
   */
  static final int WARMUP_MIN_MEMTABLES = 3;
  /** Memtables' worth of puts the warm-up writes at most: big values make few, short puts. */
  static final int WARMUP_MAX_MEMTABLES = 8;

  private @Nullable BenchStore store; // null: none open (before the first workload, after a failure)
  private boolean loaded;
  private boolean settingsPrinted;

  EngineRun(BenchEngine engine, EngineBenchConfig config, ValueSource values, Path directory, PrintWriter out) {
    this(engine.reportName(), dir -> engine.open(dir, config), config, values, directory, out);
  }

  /** A run of the store {@code opener} opens, reported as {@code engineName} (tests pass their own). */
  EngineRun(String engineName, Function<Path, BenchStore> opener, EngineBenchConfig config,
      ValueSource values, Path directory, PrintWriter out) {
    this.engineName = engineName;
    this.opener = opener;
    this.config = config;
    this.workloads = new Workloads(config, values);
    this.directory = directory;
    this.out = out;
  }

  List<WorkloadResult> run() {
    List<WorkloadResult> results = new ArrayList<>();
    warmUp();
    try {
      for (Workload workload : config.workloads()) {
        WorkloadResult result = runOne(workload);
        out.println(ResultTable.progressLine(result));
        results.add(result);
      }
    } finally {
      closeStore();
    }
    return results;
  }

  /**
   * Untimed puts and gets on a scratch store, deleted afterwards, so that the JIT has compiled
   * this engine's paths (and the harness's) before anything is measured: otherwise the engine
   * that runs first would pay for the warm-up in its first workload.
   */
  private void warmUp() {
    long ops = warmUpOps(config, workloads.putBytes());
    Path scratch = directory.resolveSibling(directory.getFileName() + "-warmup");
    out.println("  " + engineName + ": warming up (" + ops + " untimed puts and gets on a scratch store)");
    try {
      createDirectory(scratch);
      try (BenchStore warm = opener.apply(scratch)) {
        workloads.warmUp(warm, ops);
      }
    } catch (RuntimeException e) {
      // A store that cannot even warm up fails again, and is reported, in the workloads.
      out.println("  " + engineName + ": warm-up failed: " + e);
    } finally {
      deleteDirectory(scratch);
    }
  }

  /**
   * Puts (then as many gets) of the warm-up of puts of {@code putBytes}: {@link #WARMUP_OPS}, or
   * more to fill {@link #WARMUP_MIN_MEMTABLES} memtables, or fewer not to pass {@link
   * #WARMUP_MAX_MEMTABLES}; never more than --keys.
   */
  static long warmUpOps(EngineBenchConfig config, long putBytes) {
    long memtableBytes = ShaleStore.options(config).memtableSizeBytes();
    long atLeast = (WARMUP_MIN_MEMTABLES * memtableBytes + putBytes - 1) / putBytes;
    long atMost = WARMUP_MAX_MEMTABLES * memtableBytes / putBytes;
    return Math.min(config.keys(), Math.max(atLeast, Math.min(WARMUP_OPS, atMost)));
  }

  private WorkloadResult runOne(Workload workload) {
    try {
      return measure(workload, prepareStore(workload));
    } catch (UnsupportedOperationException e) {
      return WorkloadResult.notRun(engineName, workload, Status.UNSUPPORTED, String.valueOf(e.getMessage()));
    } catch (RuntimeException e) {
      return WorkloadResult.notRun(engineName, workload, Status.FAILED, e.toString());
    }
  }

  /** A fresh store for a fill; otherwise the current one, loaded first if nothing filled it. */
  private BenchStore prepareStore(Workload workload) {
    if (workload.freshStore()) {
      closeStore();
      deleteDirectory(directory);
      loaded = false;
    }
    BenchStore current = store;
    if (current == null) {
      createDirectory(directory);
      current = opener.apply(directory);
      store = current;
      out.println("  " + engineName + ": opened " + directory);
      printSettingsOnce(current);
    }
    if (!workload.freshStore() && !loaded) {
      out.println("  " + engineName + ": loading " + config.keys()
          + " keys with an untimed fillrandom before " + workload.cliName());
      workloads.fillRandom(current);
      loaded = true;
    }
    return current;
  }

  private void printSettingsOnce(BenchStore store) {
    if (settingsPrinted) return;
    settingsPrinted = true;
    out.println("  " + engineName + " settings:");
    for (String line : store.settings()) out.println("    " + line);
  }

  private WorkloadResult measure(Workload workload, BenchStore store) {
    ProcIo procBefore = ProcIo.now();
    double compactSeconds = -1;
    Measured measured;
    long growthBytes;
    try (DirectoryGrowth growth = DirectoryGrowth.start(directory)) {
      if (workload == Workload.READCOMPACTED) compactSeconds = compactAll(store);
      measured = runOperations(workload, store);
      growthBytes = growth.stop();
    }
    if (workload.freshStore()) loaded = true;
    ProcIo proc = ProcIo.now().since(procBefore);
    return new WorkloadResult(engineName, workload, Status.OK, "",
        measured.ops(), measured.seconds(),
        micros(measured, 50), micros(measured, 99), micros(measured, 99.9),
        measured.latencyNanos().getMaxValue() / 1000.0,
        workload.writes() ? -1 : measured.found(),
        logicalWriteBytes(workload, measured.ops()), proc.writeBytes(), proc.readBytes(), proc.majorFaults(), growthBytes,
        DirectoryGrowth.spaceBytes(directory), compactSeconds, store.shape());
  }

  private double compactAll(BenchStore store) {
    long start = System.nanoTime();
    store.compact();
    return (System.nanoTime() - start) / 1e9;
  }

  private Measured runOperations(Workload workload, BenchStore store) {
    return switch (workload) {
      case FILLSEQ -> workloads.fillSequential(store);
      case FILLRANDOM -> workloads.fillRandom(store);
      case OVERWRITE -> workloads.overwrite(store);
      case READRANDOM, READCOMPACTED -> workloads.readRandom(store);
      case READMISSING -> workloads.readMissing(store);
      case SEEKRANDOM -> workloads.seekRandom(store);
      case DELETERANDOM -> workloads.deleteRandom(store);
      case SCANALL -> workloads.scanAll(store);
    };
  }

  private long logicalWriteBytes(Workload workload, long ops) {
    if (workload == Workload.DELETERANDOM) return ops * KeyFormat.KEY_BYTES;
    return workload.writes() ? ops * workloads.putBytes() : 0;
  }

  private static double micros(Measured measured, double percentile) {
    return measured.latencyNanos().getValueAtPercentile(percentile) / 1000.0;
  }

  private void closeStore() {
    if (store == null) return;
    BenchStore closing = store;
    store = null;
    closing.close();
  }

  private static void createDirectory(Path directory) {
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + directory, e);
    }
  }

  /** Deletes {@code directory} and everything under it, if it exists. */
  static void deleteDirectory(Path directory) {
    if (!Files.exists(directory)) return;
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + directory, e);
    }
  }
}
