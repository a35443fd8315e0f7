package dev.shale.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tiny run of every workload on both engines, through the real harness, to its JSON report. */
class EngineBenchTest {
  static final long KEYS = 2000;

  @TempDir Path dir;

  @Test
  void tinyRunOfBothEnginesReportsEveryWorkloadWithSaneFigures() throws Exception {
    Path json = dir.resolve("out/report.json");
    EngineBenchConfig config = new EngineBenchConfig(EngineChoice.BOTH, KEYS, 100, Workload.ALL,
        KEYS, 200, 1, dir.resolve("data"), json, 7, false);
    StringWriter text = new StringWriter();

    boolean ok = EngineBench.run(config, new PrintWriter(text, true));

    assertThat(ok).as("no workload failed:\n%s", text).isTrue();
    List<Map<String, Object>> results = MiniJson.parseArrayOfObjects(Files.readString(json, StandardCharsets.UTF_8));
    assertThat(results).hasSize(2 * Workload.ALL.size());
    Map<String, Map<String, Object>> byId = new HashMap<>();
    for (Map<String, Object> r : results) {
      assertThat(r).containsKeys("engine", "workload", "status", "ops_per_sec", "p50_us", "p99_us", "p999_us");
      assertThat(r.get("status")).isIn("ok", "unsupported");
      if (r.get("status").equals("ok")) checkSane(r);
      byId.put(r.get("engine") + "/" + r.get("workload"), r);
    }
    for (String engine : List.of("shale", "rocksdb")) {
      for (Workload w : Workload.ALL) assertThat(byId).containsKey(engine + "/" + w.cliName());
      // RocksDB supports every workload; Shale's scan and compaction may still be missing.
      if (engine.equals("rocksdb")) {
        assertThat(byId.values()).filteredOn(r -> r.get("engine").equals("rocksdb"))
            .allSatisfy(r -> assertThat(r.get("status")).isEqualTo("ok"));
      }
    }
    assertFound(byId, "readrandom", KEYS);
    assertFound(byId, "readmissing", 0);
    sameFoundOnBothEngines(byId, "scanall");
    sameFoundOnBothEngines(byId, "readcompacted");
    assertThat(text.toString()).contains("survives a crash of the process", "Ratios shale/rocksdb", "rocksdbjni",
        "Disk reads per operation");
  }

  @Test
  void withDirectReadsBothEnginesReadPastThePageCacheAndFindEveryKey() throws Exception {
    Path json = dir.resolve("direct.json");
    EngineBenchConfig config = new EngineBenchConfig(EngineChoice.BOTH, KEYS, 100,
        List.of(Workload.FILLRANDOM, Workload.READRANDOM, Workload.READMISSING), KEYS, 10, 2, dir.resolve("data"), json, 7,
        false, EngineBenchConfig.DEFAULT_SYNC_INTERVAL_MILLIS, EngineBenchConfig.DEFAULT_TOMBSTONE_GRACE_MILLIS,
        EngineBenchConfig.DEFAULT_COMPRESSION, ValueKind.RANDOM, 0, true);
    StringWriter text = new StringWriter();

    assertThat(EngineBench.run(config, new PrintWriter(text, true))).as("no workload failed:\n%s", text).isTrue();

    assertThat(text.toString()).contains("a get's blocks with O_DIRECT", "reads with O_DIRECT (use_direct_reads)");
    Map<String, Map<String, Object>> byId = new HashMap<>();
    for (Map<String, Object> r : MiniJson.parseArrayOfObjects(Files.readString(json, StandardCharsets.UTF_8))) {
      assertThat(r.get("direct_reads")).isEqualTo(true);
      byId.put(r.get("engine") + "/" + r.get("workload"), r);
    }
    assertFound(byId, "readrandom", KEYS);
    assertFound(byId, "readmissing", 0);
  }

  @Test
  void readsBeforeAnyFillLoadTheStoreFirst() throws Exception {
    EngineBenchConfig config = new EngineBenchConfig(EngineChoice.SHALE, 500, 32,
        List.of(Workload.READRANDOM), 300, 10, 2, dir.resolve("data"), null, 3, false);
    StringWriter text = new StringWriter();

    assertThat(EngineBench.run(config, new PrintWriter(text, true))).isTrue();

    assertThat(text.toString()).contains("untimed fillrandom").contains("shale readrandom: 300 ops");
    assertThat(text.toString()).containsPattern("found 300/300");
  }

  @Test
  void storesAreDeletedAfterTheRunUnlessKept() throws Exception {
    Path data = dir.resolve("data");
    EngineBenchConfig config = new EngineBenchConfig(EngineChoice.SHALE, 100, 10,
        List.of(Workload.FILLSEQ), 100, 10, 1, data, null, 3, false);
    EngineBench.run(config, new PrintWriter(new StringWriter(), true));
    try (var left = Files.list(data)) {
      assertThat(left).isEmpty();
    }
    EngineBench.run(new EngineBenchConfig(EngineChoice.SHALE, 100, 10, List.of(Workload.FILLSEQ), 100, 10, 1,
        data, null, 3, true), new PrintWriter(new StringWriter(), true));
    try (var left = Files.list(data)) {
      assertThat(left).hasSize(1);
    }
  }

  @Test
  void tombstoneGraceReachesTheEnginesOptionsAndNothingElse() {
    EngineBenchConfig defaults = new EngineBenchConfig(EngineChoice.BOTH, 100, 10, List.of(Workload.FILLSEQ), 100,
        10, 1, dir, null, 3, false, 60_000, EngineBenchConfig.DEFAULT_TOMBSTONE_GRACE_MILLIS,
        EngineBenchConfig.DEFAULT_COMPRESSION, ValueKind.RANDOM, 0, false);
    EngineBenchConfig zero = graceConfig(EngineChoice.BOTH, List.of(Workload.FILLSEQ), 0, null);

    assertThat(ShaleStore.options(defaults).tombstoneGraceMillis())
        .isEqualTo(EngineOptions.defaults().tombstoneGraceMillis());
    assertThat(ShaleStore.options(zero).tombstoneGraceMillis()).isZero();
    assertThat(ShaleStore.options(zero).syncIntervalMillis()).isEqualTo(60_000);
    // Every other option is the same (the clock is a lambda, equal only to itself).
    LongSupplier clock = System::currentTimeMillis;
    assertThat(ShaleStore.options(zero).withTombstoneGraceMillis(EngineOptions.defaults().tombstoneGraceMillis())
        .withEnv(Env.real().withWallClock(clock))).isEqualTo(ShaleStore.options(defaults).withEnv(Env.real().withWallClock(clock)));
  }

  /**
   * The same deletes, then a full compaction (readcompacted; a run this small never compacts by
   * itself, so after deleterandom alone both stores would be the same): with grace 0 the
   * tombstones go, with the default they stay, so the store is smaller and scanall finds the same.
   */
  @Test
  void graceZeroDropsTheTombstonesOfDeleterandomAtFullCompaction() throws Exception {
    List<Workload> workloads = List.of(Workload.FILLRANDOM, Workload.DELETERANDOM, Workload.READCOMPACTED,
        Workload.SCANALL);
    Map<String, Map<String, Object>> zero = runShale(workloads, 0, "zero");
    Map<String, Map<String, Object>> kept = runShale(workloads, EngineBenchConfig.DEFAULT_TOMBSTONE_GRACE_MILLIS, "kept");

    assertThat(zero.get("readcompacted").get("tombstone_grace_ms")).isEqualTo(0.0);
    assertThat(kept.get("readcompacted").get("tombstone_grace_ms"))
        .isEqualTo((double) EngineBenchConfig.DEFAULT_TOMBSTONE_GRACE_MILLIS);
    double zeroSpace = (Double) zero.get("readcompacted").get("space_bytes");
    double keptSpace = (Double) kept.get("readcompacted").get("space_bytes");
    // deleterandom deletes about 63% of 3000 keys: over a thousand tombstones of 16-byte keys.
    assertThat(keptSpace - zeroSpace).as("space of the tombstones, %s vs %s", keptSpace, zeroSpace)
        .isGreaterThan(1000 * KeyFormat.KEY_BYTES);
    assertThat(zero.get("scanall").get("found")).isEqualTo(kept.get("scanall").get("found"));
  }

  private Map<String, Map<String, Object>> runShale(List<Workload> workloads, long graceMillis, String name)
      throws Exception {
    Path json = dir.resolve(name + ".json");
    StringWriter text = new StringWriter();

    boolean ok = EngineBench.run(graceConfig(EngineChoice.SHALE, workloads, graceMillis, json), new PrintWriter(text, true));

    assertThat(ok).as("no workload failed:\n%s", text).isTrue();
    assertThat(text.toString()).contains("shale tombstone grace: " + graceMillis + " ms",
        "tombstone grace: " + graceMillis + " ms (a tombstone is kept");
    Map<String, Map<String, Object>> byWorkload = new HashMap<>();
    for (Map<String, Object> r : MiniJson.parseArrayOfObjects(Files.readString(json, StandardCharsets.UTF_8))) {
      assertThat(r.get("status")).as("%s", r).isEqualTo("ok");
      byWorkload.put((String) r.get("workload"), r);
    }
    return byWorkload;
  }

  private EngineBenchConfig graceConfig(EngineChoice engines, List<Workload> workloads, long graceMillis, Path json) {
    return new EngineBenchConfig(engines, 3000, 100, workloads, 3000, 10, 1, dir.resolve("data"), json, 5, false,
        60_000, graceMillis, EngineBenchConfig.DEFAULT_COMPRESSION, ValueKind.RANDOM, 0, false);
  }

  private static void checkSane(Map<String, Object> r) {
    double p50 = (Double) r.get("p50_us");
    double p99 = (Double) r.get("p99_us");
    double p999 = (Double) r.get("p999_us");
    assertThat((Double) r.get("ops_per_sec")).as("ops/s of %s", r).isPositive();
    assertThat(p50).as("p50 of %s", r).isPositive().isLessThanOrEqualTo(p99);
    assertThat(p99).as("p99 of %s", r).isLessThanOrEqualTo(p999);
    assertThat((Double) r.get("space_bytes")).as("space of %s", r).isPositive();
    if (List.of("fillseq", "fillrandom", "overwrite", "deleterandom").contains(r.get("workload"))) {
      assertThat((Double) r.get("logical_write_bytes")).isPositive();
      assertThat(r.get("write_amp")).as("write amplification of %s", r).isNotNull();
    } else {
      assertThat(r.get("write_amp")).isNull();
    }
  }

  private static void assertFound(Map<String, Map<String, Object>> byId, String workload, long expected) {
    for (String engine : List.of("shale", "rocksdb")) {
      Map<String, Object> r = byId.get(engine + "/" + workload);
      assertThat(r.get("status")).isEqualTo("ok");
      assertThat((Double) r.get("found")).as("%s %s found", engine, workload).isEqualTo((double) expected);
    }
  }

  /** Same seed, same operations: where both engines ran a workload, they must agree. */
  private static void sameFoundOnBothEngines(Map<String, Map<String, Object>> byId, String workload) {
    Map<String, Object> shale = byId.get("shale/" + workload);
    Map<String, Object> rocks = byId.get("rocksdb/" + workload);
    if (!shale.get("status").equals("ok")) return;
    assertThat(shale.get("found")).as("%s found", workload).isEqualTo(rocks.get("found"));
  }
}
