package dev.shale.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.bench.WorkloadResult.Status;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A workload the engine does not support, or that fails, is reported and the run goes on: with
 * a store (Shale's, really) that refuses compaction and scans and whose deletes fail.
 */
class EngineRunTest {
  @TempDir Path dir;

  @Test
  void unsupportedAndFailedWorkloadsAreReportedAndTheRunGoesOn() {
    EngineBenchConfig config = new EngineBenchConfig(EngineChoice.SHALE, 300, 20,
        List.of(Workload.FILLSEQ, Workload.READCOMPACTED, Workload.SEEKRANDOM, Workload.DELETERANDOM,
            Workload.READRANDOM, Workload.SCANALL),
        300, 10, 2, dir, null, 5, false);
    StringWriter out = new StringWriter();
    EngineRun run = new EngineRun("limited", path -> new LimitedStore(ShaleStore.open(path, config)), config,
        new ValueSource(20, 5), dir.resolve("limited"), new PrintWriter(out, true));

    List<WorkloadResult> results = run.run();

    assertThat(results).extracting(WorkloadResult::status).containsExactly(
        Status.OK, Status.UNSUPPORTED, Status.UNSUPPORTED, Status.FAILED, Status.OK, Status.UNSUPPORTED);
    assertThat(results.get(1).message()).isEqualTo("no compaction here");
    assertThat(results.get(3).message()).contains("IllegalStateException", "deletes fail here");
    assertThat(results.get(4).found()).isEqualTo(300);
    assertThat(out.toString()).contains("limited seekrandom: unsupported (no scans here)");
  }

  @Test
  void theWarmUpFillsThreeMemtablesWithoutPassingEight() {
    long memtable = ShaleStore.options(config(10_000_000)).memtableSizeBytes();
    long put100 = KeyFormat.KEY_BYTES + 100;
    long put1m = KeyFormat.KEY_BYTES + (1 << 20);
    // 100-byte values: 100,000 puts would not fill one memtable; three memtables' worth is more.
    assertThat(EngineRun.warmUpOps(config(10_000_000), put100)).isEqualTo((3 * memtable + put100 - 1) / put100);
    // 1,000-byte values: 100,000 puts fill between three and eight memtables.
    assertThat(EngineRun.warmUpOps(config(10_000_000), KeyFormat.KEY_BYTES + 1000)).isEqualTo(EngineRun.WARMUP_OPS);
    // 1 MiB values: eight memtables' worth, not 100,000 puts (100 GiB).
    assertThat(EngineRun.warmUpOps(config(10_000_000), put1m)).isEqualTo(8 * memtable / put1m);
    // Never more puts than --keys.
    assertThat(EngineRun.warmUpOps(config(300), put100)).isEqualTo(300);
  }

  private EngineBenchConfig config(long keys) {
    return new EngineBenchConfig(EngineChoice.SHALE, keys, 100, List.of(Workload.FILLSEQ), 1, 1, 1, dir, null, 5, false);
  }

  /** Passes everything on to a real store except compaction, scans and deletes. */
  private record LimitedStore(BenchStore store) implements BenchStore {
    @Override
    public List<String> settings() {
      return store.settings();
    }

    @Override
    public void put(byte[] key, byte[] value) {
      store.put(key, value);
    }

    @Override
    public boolean get(byte[] key) {
      return store.get(key);
    }

    @Override
    public void delete(byte[] key) {
      throw new IllegalStateException("deletes fail here");
    }

    @Override
    public Cursor scan(byte[] startInclusive) {
      throw new UnsupportedOperationException("no scans here");
    }

    @Override
    public void compact() {
      throw new UnsupportedOperationException("no compaction here");
    }

    @Override
    public String shape() {
      return store.shape();
    }

    @Override
    public void close() {
      store.close();
    }
  }
}
