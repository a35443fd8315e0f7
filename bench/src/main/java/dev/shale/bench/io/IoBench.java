package dev.shale.bench.io;

import dev.shale.storage.RingReads;
import dev.shale.storage.Vfs;
import dev.shale.storage.uring.IoUringUnavailableException;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code shale bench io}: random direct reads of blocks of one file, kept in flight two ways in
 * one run (issue 30): threads blocked in {@code pread}, as a node's storage workers read, and one
 * thread with an io_uring. For each: reads/s, latency, and the CPU time and context switches each
 * read costs, which is what a node on one core pays for its disk reads beside its requests.
 */
public final class IoBench {
  private IoBench() {}

  /**
   * Runs the benchmark, printing to {@code out}: true if every mode asked for ran or was reported
   * unavailable (io_uring on a host without it), false if one failed.
   *
   * @throws IOException if the file cannot be made or opened, or refuses O_DIRECT
   */
  public static boolean run(IoBenchConfig config, PrintWriter out) throws IOException {
    out.println("shale io benchmark, " + Instant.now());
    out.println("reads: random " + config.blockBytes() + "-byte blocks, aligned, O_DIRECT, of the first "
        + config.sizeBytes() + " bytes of " + config.file() + "; warm-up " + config.warmupMillis() + " ms, then "
        + config.durationMillis() + " ms counted per mode; seed " + config.seed());
    BlockFile.prepare(config.file(), config.sizeBytes(), config.seed(), out);
    List<IoResult> results = new ArrayList<>();
    boolean ok = true;
    try (Vfs.ReadableFile file = Vfs.realDirect().open(config.file())) {
      if (!RingReads.canQueue(file)) {
        throw new IOException(config.file() + ": its file system refuses O_DIRECT, which every read here is");
      }
      for (IoMode mode : config.modes()) {
        IoResult result = runMode(mode, config, file);
        if (result.outcome() == IoResult.Outcome.FAILED) ok = false;
        results.add(result);
        out.println("  " + IoReport.progressLine(result));
        out.flush();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    IoReport.printTable(out, results);
    if (config.jsonFile() != null) {
      IoReport.writeJson(config.jsonFile(), config, results);
      out.println("JSON report: " + config.jsonFile());
    }
    out.flush();
    return ok;
  }

  private static IoResult runMode(IoMode mode, IoBenchConfig config, Vfs.ReadableFile file)
      throws InterruptedException {
    int concurrency = mode == IoMode.PREAD ? config.threads() : config.depth();
    try {
      return switch (mode) {
        case PREAD -> PreadRun.run(config, file);
        case URING -> RingRun.run(config, file);
      };
    } catch (IoUringUnavailableException e) {
      return IoResult.notRun(mode, concurrency, IoResult.Outcome.UNAVAILABLE, "unavailable: " + e.getMessage());
    } catch (IOException | RuntimeException e) {
      return IoResult.notRun(mode, concurrency, IoResult.Outcome.FAILED, "failed: " + e);
    }
  }
}
