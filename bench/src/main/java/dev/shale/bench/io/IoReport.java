package dev.shale.bench.io;

import dev.shale.bench.JsonText;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report of {@code shale bench io}: a line per mode as it finishes, then a table of the
 * modes side by side, and on request the same as JSON (an array of flat objects, one per mode;
 * a figure that is unknown or does not apply is null).
 */
final class IoReport {
  private static final String ROW = "%-6s %-10s %11s %9s %9s %9s %13s %13s %11s %11s";

  private IoReport() {}

  static String progressLine(IoResult r) {
    if (!r.ran()) return r.mode().cliName() + ": " + r.message();
    return String.format(Locale.ROOT, "%s (%s): %d reads in %.1f s, %.0f reads/s, p50 %.0f us, p99 %.0f us; "
            + "io_uring kernel workers at the end: %s",
        r.mode().cliName(), concurrency(r), r.reads(), r.seconds(), r.readsPerSecond(), r.percentileMicros(50),
        r.percentileMicros(99), r.process().kernelWorkers() < 0 ? "unknown" : r.process().kernelWorkers());
  }

  static void printTable(PrintWriter out, List<IoResult> results) {
    out.println();
    out.println(String.format(Locale.ROOT, ROW, "mode", "in flight", "reads/s", "p50 us", "p99 us", "p99.9 us",
        "readers us/rd", "process us/rd", "vol cs/rd", "invol cs/rd"));
    for (IoResult r : results) {
      if (!r.ran()) {
        out.println(String.format(Locale.ROOT, "%-6s %-10s %s", r.mode().cliName(), concurrency(r), r.message()));
        continue;
      }
      out.println(String.format(Locale.ROOT, ROW, r.mode().cliName(), concurrency(r),
          String.format(Locale.ROOT, "%.0f", r.readsPerSecond()), micros(r.percentileMicros(50)),
          micros(r.percentileMicros(99)), micros(r.percentileMicros(99.9)),
          perRead(r.perRead(r.readers().cpuNanos()) / 1000), perRead(r.perRead(r.process().cpuNanos()) / 1000),
          perRead(r.perRead(r.readers().voluntarySwitches())), perRead(r.perRead(r.readers().involuntarySwitches()))));
    }
    out.println("readers us/rd: CPU time (user+system) of the reading threads per read; process us/rd: of the whole"
        + " JVM, io_uring's kernel workers (iou-wrk threads, named on each mode's line) included; cs/rd: the reading threads' voluntary and involuntary context"
        + " switches per read. Latency: from a read's issue to its thread seeing it done.");
  }

  static void writeJson(Path file, IoBenchConfig config, List<IoResult> results) throws IOException {
    JsonText.writeArray(file, objects(config, results));
  }

  static String toJson(IoBenchConfig config, List<IoResult> results) {
    return JsonText.array(objects(config, results));
  }

  private static List<String> objects(IoBenchConfig config, List<IoResult> results) {
    return results.stream().map(r -> object(config, r)).toList();
  }

  private static String object(IoBenchConfig config, IoResult r) {
    boolean ran = r.ran();
    List<String> fields = new ArrayList<>();
    fields.add(field("mode", string(r.mode().cliName())));
    fields.add(field("status", string(r.outcome().reportName())));
    fields.add(field("message", ran ? "null" : string(r.message())));
    fields.add(field(r.mode() == IoMode.PREAD ? "threads" : "depth", Integer.toString(r.concurrency())));
    fields.add(field("block_size", Integer.toString(config.blockBytes())));
    fields.add(field("file_size", Long.toString(config.sizeBytes())));
    fields.add(field("seconds", ran ? number(r.seconds()) : "null"));
    fields.add(field("reads", ran ? Long.toString(r.reads()) : "null"));
    fields.add(field("reads_per_sec", ran ? number(r.readsPerSecond()) : "null"));
    fields.add(field("p50_us", ran ? number(r.percentileMicros(50)) : "null"));
    fields.add(field("p99_us", ran ? number(r.percentileMicros(99)) : "null"));
    fields.add(field("p999_us", ran ? number(r.percentileMicros(99.9)) : "null"));
    fields.add(field("max_us", ran ? number(r.latencyNanos().getMaxValue() / 1000.0) : "null"));
    fields.add(field("reader_cpu_us_per_read", ran ? number(r.perRead(r.readers().cpuNanos()) / 1000) : "null"));
    fields.add(field("process_cpu_us_per_read", ran ? number(r.perRead(r.process().cpuNanos()) / 1000) : "null"));
    fields.add(field("io_uring_kernel_workers",
        ran && r.process().kernelWorkers() >= 0 ? Integer.toString(r.process().kernelWorkers()) : "null"));
    fields.add(field("voluntary_switches_per_read", ran ? number(r.perRead(r.readers().voluntarySwitches())) : "null"));
    fields.add(field("involuntary_switches_per_read",
        ran ? number(r.perRead(r.readers().involuntarySwitches())) : "null"));
    return JsonText.object(fields);
  }

  private static String concurrency(IoResult r) {
    return r.mode() == IoMode.PREAD ? r.concurrency() + " threads" : "depth " + r.concurrency();
  }

  private static String micros(double value) {
    return String.format(Locale.ROOT, "%.0f", value);
  }

  // A per-read figure; "-" where unknown (negative: perRead's -1, divided or not).
  private static String perRead(double value) {
    return value < 0 ? "-" : String.format(Locale.ROOT, "%.3f", value);
  }

  private static String field(String name, String value) {
    return JsonText.field(name, value);
  }

  // Unknown (negative) or not finite: null.
  private static String number(double value) {
    return value < 0 ? "null" : JsonText.number(value);
  }

  private static String string(String s) {
    return JsonText.string(s);
  }
}
