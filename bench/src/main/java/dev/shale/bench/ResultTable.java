package dev.shale.bench;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The terminal report: a line per result as it comes, then the table and the ratios. */
final class ResultTable {
  private static final String ROW = "%-13s %-8s %12s %10s %10s %10s %10s %7s %10s  %s";
  private static final String RATIO_ROW = "%-13s %12s %10s %10s %10s %7s %10s";

  private ResultTable() {}

  static String progressLine(WorkloadResult r) {
    if (!r.ok()) return "  " + r.engine() + " " + r.workload().cliName() + ": " + r.status().reportName() + " (" + r.message() + ")";
    return String.format(Locale.ROOT, "  %s %s: %d ops in %.2f s, %s ops/s, p50 %s us, p99 %s us, p99.9 %s us%s",
        r.engine(), r.workload().cliName(), r.ops(), r.seconds(), rate(r.opsPerSecond()),
        micros(r.p50Micros()), micros(r.p99Micros()), micros(r.p999Micros()),
        r.compactSeconds() >= 0 ? String.format(Locale.ROOT, " (after a %.2f s compaction)", r.compactSeconds()) : "");
  }

  static void print(PrintWriter out, List<WorkloadResult> results) {
    out.println();
    out.println(String.format(Locale.ROOT, ROW, "workload", "engine", "ops/s", "p50 us", "p99 us",
        "p99.9 us", "max us", "w-amp", "space", "notes"));
    for (WorkloadResult r : results) out.println(row(r));
    printRatios(out, results);
    printDiskReads(out, results);
  }

  /**
   * What each workload read from the disk, per operation: /proc/self/io's read_bytes (reads the
   * page cache answered count nothing; compactions' reads in the meantime count too) and the major
   * page faults. A store that fits in memory reads almost nothing; one larger than memory shows
   * here what each get costs the disk.
   */
  private static void printDiskReads(PrintWriter out, List<WorkloadResult> results) {
    if (results.stream().noneMatch(r -> r.ok() && r.procReadBytes() >= 0)) return;
    out.println();
    out.println("Disk reads per operation (/proc/self/io read_bytes and major page faults, the workload's whole window)");
    out.println(String.format(Locale.ROOT, "%-13s %-8s %14s %14s", "workload", "engine", "KiB read/op", "faults/op"));
    for (WorkloadResult r : results) {
      if (!r.ok() || r.ops() == 0) continue;
      out.println(String.format(Locale.ROOT, "%-13s %-8s %14s %14s", r.workload().cliName(), r.engine(),
          r.procReadBytes() < 0 ? "-" : String.format(Locale.ROOT, "%.2f", r.procReadBytes() / 1024.0 / r.ops()),
          r.majorFaults() < 0 ? "-" : String.format(Locale.ROOT, "%.3f", (double) r.majorFaults() / r.ops())));
    }
  }

  private static String row(WorkloadResult r) {
    if (!r.ok()) {
      return String.format(Locale.ROOT, "%-13s %-8s %s: %s", r.workload().cliName(), r.engine(),
          r.status().reportName(), r.message());
    }
    String notes = r.notes();
    if (r.found() >= 0) notes = "found " + r.found() + "/" + r.ops() + "; " + notes;
    if (r.compactSeconds() >= 0) notes = String.format(Locale.ROOT, "compaction %.2f s; ", r.compactSeconds()) + notes;
    return String.format(Locale.ROOT, ROW, r.workload().cliName(), r.engine(), rate(r.opsPerSecond()),
        micros(r.p50Micros()), micros(r.p99Micros()), micros(r.p999Micros()), micros(r.maxMicros()),
        amplification(r.writeAmplification()), Units.bytes(r.spaceBytes()), notes);
  }

  /**
   * Shale / RocksDB for every workload both ran: above 1 Shale is ahead for ops/s; below 1 it is
   * ahead for latency, write amplification and space. Only when both engines ran.
   */
  private static void printRatios(PrintWriter out, List<WorkloadResult> results) {
    Map<String, WorkloadResult[]> pairs = new LinkedHashMap<>();
    Map<String, Integer> seen = new LinkedHashMap<>();
    for (WorkloadResult r : results) {
      // The n-th run of a workload on one engine pairs with the n-th on the other.
      String id = r.engine() + "/" + r.workload().cliName();
      int n = seen.merge(id, 1, Integer::sum);
      String pairKey = r.workload().cliName() + (n > 1 ? "#" + n : "");
      WorkloadResult[] pair = pairs.computeIfAbsent(pairKey, k -> new WorkloadResult[2]);
      if (r.engine().equals(BenchEngine.SHALE.reportName())) pair[0] = r;
      if (r.engine().equals(BenchEngine.ROCKSDB.reportName())) pair[1] = r;
    }
    boolean header = false;
    for (Map.Entry<String, WorkloadResult[]> byKey : pairs.entrySet()) { // in order of first appearance
      String key = byKey.getKey();
      WorkloadResult[] pair = byKey.getValue();
      if (pair[0] == null || pair[1] == null) continue;
      if (!header) {
        out.println();
        out.println("Ratios shale/rocksdb (ops/s: above 1 is Shale ahead; latency, w-amp, space: below 1 is Shale ahead)");
        out.println(String.format(Locale.ROOT, RATIO_ROW, "workload", "ops/s", "p50", "p99", "p99.9", "w-amp", "space"));
        header = true;
      }
      out.println(ratioRow(key, pair[0], pair[1]));
    }
  }

  private static String ratioRow(String workload, WorkloadResult shale, WorkloadResult rocks) {
    if (!shale.ok() || !rocks.ok()) {
      return String.format(Locale.ROOT, "%-13s shale %s, rocksdb %s", workload,
          shale.status().reportName(), rocks.status().reportName());
    }
    return String.format(Locale.ROOT, RATIO_ROW, workload,
        ratio(shale.opsPerSecond(), rocks.opsPerSecond()),
        ratio(shale.p50Micros(), rocks.p50Micros()),
        ratio(shale.p99Micros(), rocks.p99Micros()),
        ratio(shale.p999Micros(), rocks.p999Micros()),
        ratio(shale.writeAmplification(), rocks.writeAmplification()),
        ratio(shale.spaceBytes(), rocks.spaceBytes()));
  }

  static String ratio(double a, double b) {
    if (Double.isNaN(a) || Double.isNaN(b) || b == 0) return "-";
    return String.format(Locale.ROOT, "%.2f", a / b);
  }

  static String rate(double opsPerSecond) {
    return String.format(Locale.ROOT, "%.0f", opsPerSecond);
  }

  static String micros(double micros) {
    return String.format(Locale.ROOT, micros < 100 ? "%.2f" : "%.0f", micros);
  }

  static String amplification(double writeAmplification) {
    return Double.isNaN(writeAmplification) ? "-" : String.format(Locale.ROOT, "%.2f", writeAmplification);
  }
}
