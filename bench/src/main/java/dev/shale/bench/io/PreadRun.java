package dev.shale.bench.io;

import dev.shale.storage.Vfs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;

/**
 * {@link IoMode#PREAD}: threads that each read a random block, wait for it, and read the next, as
 * a node's storage workers do: through {@link Vfs.ReadableFile#readBlock} of a {@link
 * Vfs#realDirect()} file, the engine's own path (a {@code pread} with {@code O_DIRECT} into the
 * thread's aligned buffer, copied to the caller's memory). Reads in flight: one per thread.
 */
final class PreadRun {
  private PreadRun() {}

  static IoResult run(IoBenchConfig config, Vfs.ReadableFile file) throws IOException, InterruptedException {
    int count = config.threads();
    Histogram[] latencies = new Histogram[count];
    long[] reads = new long[count];
    ThreadCost[] costs = new ThreadCost[count];
    Window window = Window.startingNow(config.warmupMillis(), config.durationMillis());
    Readers.ProcessCost process = Readers.run("bench-pread", count, window, index -> {
      Histogram latency = new Histogram(3);
      SplittableRandom random = new SplittableRandom(config.seed() + index);
      ThreadCost start = null;
      long done = 0;
      try (Arena arena = Arena.ofConfined()) {
        MemorySegment target = arena.allocate(config.blockBytes());
        while (true) {
          long issued = System.nanoTime();
          if (issued >= window.endNanos()) break;
          if (start == null && issued >= window.measureFromNanos()) start = ThreadCost.ofCurrentThread();
          file.readBlock(target, random.nextLong(config.blocks()) * config.blockBytes());
          long completed = System.nanoTime();
          if (start != null && completed <= window.endNanos()) {
            latency.recordValue(completed - issued);
            done++;
          }
        }
      }
      latencies[index] = latency;
      reads[index] = done;
      costs[index] = start == null ? ThreadCost.ZERO : ThreadCost.ofCurrentThread().since(start);
    });
    Histogram merged = new Histogram(3);
    long total = 0;
    ThreadCost cost = ThreadCost.ZERO;
    for (int i = 0; i < count; i++) {
      merged.add(latencies[i]);
      total += reads[i];
      cost = cost.plus(costs[i]);
    }
    return IoResult.ran(IoMode.PREAD, count, total, window.seconds(), merged, cost, process);
  }
}
