package dev.shale.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.bench.WorkloadResult.Status;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JSON and terminal reports, on results made by hand. */
class ReportTest {
  @TempDir Path dir;

  final EngineBenchConfig config = new EngineBenchConfig(EngineChoice.BOTH, 10, 100,
      List.of(Workload.FILLSEQ), 10, 1, 1, Path.of("unused"), null, 1, false);

  WorkloadResult ok(String engine, double seconds) {
    return new WorkloadResult(engine, Workload.FILLSEQ, Status.OK, "", 1000, seconds, 1.5, 9, 20, 400,
        -1, 116_000, 232_000, 4096, 2, 200_000, 300_000, -1, "3 tables");
  }

  @Test
  void jsonEscapesTextAndWritesNullForWhatDoesNotApply() {
    WorkloadResult unsupported = WorkloadResult.notRun("shale", Workload.SCANALL, Status.UNSUPPORTED,
        "scan \"is\" not\nimplemented \\ yet\u0001");
    String json = JsonReport.toJson(config, List.of(ok("rocksdb", 0.5), unsupported));

    List<Map<String, Object>> parsed = MiniJson.parseArrayOfObjects(json);

    assertThat(parsed).hasSize(2);
    assertThat(parsed.get(0)).containsEntry("ops_per_sec", 2000.0).containsEntry("write_amp", 2.0)
        .containsEntry("found", null).containsEntry("p99_us", 9.0)
        .containsEntry("proc_read_bytes", 4096.0).containsEntry("major_faults", 2.0);
    assertThat(parsed.get(1)).containsEntry("status", "unsupported").containsEntry("ops_per_sec", null)
        .containsEntry("message", "scan \"is\" not\nimplemented \\ yet\u0001");
    assertThat(JsonReport.number(Double.NaN)).isEqualTo("null");
  }

  @Test
  void jsonRecordsShalesTombstoneGraceAndNullForRocksdb() {
    EngineBenchConfig graceZero = new EngineBenchConfig(EngineChoice.BOTH, 10, 100, List.of(Workload.FILLSEQ), 10,
        1, 1, Path.of("unused"), null, 1, false, 200, 0, EngineBenchConfig.DEFAULT_COMPRESSION, ValueKind.RANDOM, 0, false);

    List<Map<String, Object>> zero = MiniJson.parseArrayOfObjects(
        JsonReport.toJson(graceZero, List.of(ok("shale", 1), ok("rocksdb", 1))));
    List<Map<String, Object>> byDefault = MiniJson.parseArrayOfObjects(JsonReport.toJson(config, List.of(ok("shale", 1))));

    assertThat(zero.get(0)).containsEntry("tombstone_grace_ms", 0.0);
    assertThat(zero.get(1)).containsEntry("tombstone_grace_ms", null);
    assertThat(byDefault.get(0))
        .containsEntry("tombstone_grace_ms", (double) EngineBenchConfig.DEFAULT_TOMBSTONE_GRACE_MILLIS);
    assertThat(EngineBench.tombstoneLine(graceZero)).isEqualTo("shale tombstone grace: 0 ms (--tombstone-grace): "
        + "tombstones dropped at the first compaction that may, as RocksDB does");
    assertThat(EngineBench.tombstoneLine(config)).startsWith("shale tombstone grace: 86400000 ms, the engine's default");
  }

  @Test
  void tablePrintsRatiosOfEnginesThatBothRan() {
    StringWriter out = new StringWriter();
    ResultTable.print(new PrintWriter(out, true), List.of(ok("shale", 0.25), ok("rocksdb", 0.5),
        WorkloadResult.notRun("shale", Workload.SCANALL, Status.UNSUPPORTED, "later"),
        WorkloadResult.notRun("rocksdb", Workload.SCANALL, Status.FAILED, "boom")));
    String text = out.toString();
    assertThat(text).contains("fillseq       shale            4000");
    assertThat(text).containsPattern("fillseq +2\\.00 +1\\.00 +1\\.00 +1\\.00 +1\\.00 +1\\.00");
    assertThat(text).contains("scanall       shale unsupported, rocksdb failed");
  }

  @Test
  void directoryGrowthCountsNewFilesAndGrowth() throws Exception {
    Path old = Files.write(dir.resolve("old"), new byte[100]);
    DirectoryGrowth growth = DirectoryGrowth.start(dir);
    Files.write(dir.resolve("new"), new byte[1000]);
    Files.write(old, new byte[50], java.nio.file.StandardOpenOption.APPEND);
    assertThat(growth.stop()).isEqualTo(1050);
    assertThat(DirectoryGrowth.spaceBytes(dir)).isEqualTo(1150);
  }
}
