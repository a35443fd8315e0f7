package dev.shale.app;

import dev.shale.bench.io.IoBench;
import dev.shale.bench.io.IoBenchConfig;
import dev.shale.bench.io.IoMode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code shale bench io}: random direct reads of a file, by threads in pread and by one thread with an io_uring. */
@Command(
    name = "io",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Reads random blocks of a file with O_DIRECT, by threads in pread and by one io_uring.",
      "Keeps reads in flight two ways, one after the other: threads that each wait in pread",
      "(--threads; the node's storage workers read so), and one thread keeping --depth reads in",
      "flight on an io_uring. Prints per mode reads/s, p50/p99/p99.9 latency, and the CPU time and",
      "context switches of the reading threads per read.",
      "Makes the file of random bytes once (--size), and reuses it. Exit status 1 if a mode failed",
      "(io_uring unavailable on this host is reported and does not count), 2 for a usage error.",
      ""
    },
    footer = {"", "Sizes are bytes, optionally with k, m or g (KiB, MiB, GiB). Durations are milliseconds."})
final class BenchIoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--file", paramLabel = "<path>", required = true,
      description = "The file read: made, or grown, to --size with random bytes if it is smaller; kept afterwards. "
          + "On the disk to measure, on a file system that allows O_DIRECT.")
  Path file;

  @Option(names = "--size", paramLabel = "<size>", defaultValue = "4g", converter = ByteSizeConverter.class,
      description = "How much of the file the reads choose from: larger than the disk's cache. Default: ${DEFAULT-VALUE}.")
  long sizeBytes;

  @Option(names = "--mode", paramLabel = "pread|uring|both", defaultValue = "both",
      description = "Which modes to run. Default: ${DEFAULT-VALUE} (pread, then uring).")
  String mode;

  @Option(names = "--threads", paramLabel = "<n>", defaultValue = "16",
      description = "pread's threads, one read in flight each. Default: ${DEFAULT-VALUE}, a node's storage workers.")
  int threads;

  @Option(names = "--depth", paramLabel = "<n>", defaultValue = "16",
      description = "uring's reads in flight, all from one thread. Default: ${DEFAULT-VALUE}.")
  int depth;

  @Option(names = "--block-size", paramLabel = "<size>", defaultValue = "4k", converter = ByteSizeConverter.class,
      description = "The size of every read, a multiple of 4k: a table block. Default: ${DEFAULT-VALUE}.")
  long blockBytes;

  @Option(names = "--warmup", paramLabel = "<ms>", defaultValue = "2000",
      description = "How long each mode reads before counting. Default: ${DEFAULT-VALUE}.")
  long warmupMillis;

  @Option(names = "--duration", paramLabel = "<ms>", defaultValue = "20000",
      description = "How long each mode counts. Default: ${DEFAULT-VALUE}.")
  long durationMillis;

  @Option(names = "--json", paramLabel = "<file>",
      description = "Also write the results to this file: a JSON array, one object per mode (mode, status, threads "
          + "or depth, reads_per_sec, p50_us, p99_us, p999_us, reader_cpu_us_per_read, voluntary_switches_per_read, ...).")
  Path json;

  @Option(names = "--seed", paramLabel = "<n>", defaultValue = "1",
      description = "Seed of the file's bytes and of the blocks read. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Override
  public Integer call() throws IOException {
    IoBenchConfig config = config();
    PrintWriter out = spec.commandLine().getOut();
    return IoBench.run(config, out) ? 0 : Main.FAILED;
  }

  /** The run's settings, or a usage error naming the bad option. */
  IoBenchConfig config() {
    try {
      if (blockBytes > Integer.MAX_VALUE) throw new IllegalArgumentException("--block-size is too large: " + blockBytes);
      return new IoBenchConfig(file, sizeBytes, (int) blockBytes, IoMode.named(mode), threads, depth, warmupMillis,
          durationMillis, json, seed);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
