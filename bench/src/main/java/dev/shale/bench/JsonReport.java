package dev.shale.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JSON report: an array with one object per engine and workload run. Every object has
 * {@code engine}, {@code workload} and {@code status} ("ok", "unsupported" or "failed"); the
 * measured fields ({@code ops_per_sec}, {@code p50_us}, {@code p99_us}, {@code p999_us}, ...) are
 * numbers when the status is "ok" and null otherwise, and so is any figure that does not apply
 * (e.g. {@code write_amp} of a read, {@code tombstone_grace_ms} of RocksDB, which has no grace
 * period). Written by hand, through {@link JsonText}.
 */
final class JsonReport {
  private JsonReport() {}

  static void write(Path file, EngineBenchConfig config, List<WorkloadResult> results) throws IOException {
    JsonText.writeArray(file, objects(config, results));
  }

  static String toJson(EngineBenchConfig config, List<WorkloadResult> results) {
    return JsonText.array(objects(config, results));
  }

  private static List<String> objects(EngineBenchConfig config, List<WorkloadResult> results) {
    return results.stream().map(r -> object(config, r)).toList();
  }

  private static String object(EngineBenchConfig config, WorkloadResult r) {
    boolean ok = r.ok();
    List<String> fields = new ArrayList<>();
    fields.add(field("engine", string(r.engine())));
    fields.add(field("workload", string(r.workload().cliName())));
    fields.add(field("status", string(r.status().reportName())));
    fields.add(field("message", r.message().isEmpty() ? "null" : string(r.message())));
    fields.add(field("keys", Long.toString(config.keys())));
    fields.add(field("value_size", Integer.toString(config.valueSizeBytes())));
    fields.add(field("values", string(config.values().cliName())));
    fields.add(field("compression", string(config.compression().optionName())));
    fields.add(field("threads", Integer.toString(config.threads())));
    fields.add(field("memory_limit_bytes", config.memoryLimitBytes() == 0 ? "null" : Long.toString(config.memoryLimitBytes())));
    fields.add(field("direct_reads", Boolean.toString(config.directReads())));
    fields.add(field("tombstone_grace_ms",
        r.engine().equals(BenchEngine.SHALE.reportName()) ? Long.toString(config.tombstoneGraceMillis()) : "null"));
    fields.add(field("ops", ok ? Long.toString(r.ops()) : "null"));
    fields.add(field("seconds", ok ? number(r.seconds()) : "null"));
    fields.add(field("ops_per_sec", ok ? number(r.opsPerSecond()) : "null"));
    fields.add(field("p50_us", ok ? number(r.p50Micros()) : "null"));
    fields.add(field("p99_us", ok ? number(r.p99Micros()) : "null"));
    fields.add(field("p999_us", ok ? number(r.p999Micros()) : "null"));
    fields.add(field("max_us", ok ? number(r.maxMicros()) : "null"));
    fields.add(field("found", ok && r.found() >= 0 ? Long.toString(r.found()) : "null"));
    fields.add(field("logical_write_bytes", ok ? Long.toString(r.logicalWriteBytes()) : "null"));
    fields.add(field("proc_write_bytes", ok && r.procWriteBytes() >= 0 ? Long.toString(r.procWriteBytes()) : "null"));
    fields.add(field("proc_read_bytes", ok && r.procReadBytes() >= 0 ? Long.toString(r.procReadBytes()) : "null"));
    fields.add(field("major_faults", ok && r.majorFaults() >= 0 ? Long.toString(r.majorFaults()) : "null"));
    fields.add(field("dir_growth_bytes", ok ? Long.toString(r.directoryGrowthBytes()) : "null"));
    fields.add(field("write_amp", ok ? number(r.writeAmplification()) : "null"));
    fields.add(field("space_bytes", ok ? Long.toString(r.spaceBytes()) : "null"));
    fields.add(field("compact_seconds", ok && r.compactSeconds() >= 0 ? number(r.compactSeconds()) : "null"));
    fields.add(field("notes", ok ? string(r.notes()) : "null"));
    return JsonText.object(fields);
  }

  private static String field(String name, String value) {
    return JsonText.field(name, value);
  }

  static String number(double value) {
    return JsonText.number(value);
  }

  private static String string(String s) {
    return JsonText.string(s);
  }
}
