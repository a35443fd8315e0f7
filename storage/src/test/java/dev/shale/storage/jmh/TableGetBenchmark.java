package dev.shale.storage.jmh;

import dev.shale.storage.Entry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code Table.get} on a hot table ({@link HotTable}): Bloom probe, index binary search, block
 * crc check, block binary search, value copy for a present key; for an absent one, mostly the
 * Bloom probe alone (about 1% false positives go on to read a block).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class TableGetBenchmark {
  private int next;

  @Benchmark
  public Entry getPresentKey(HotTable hot) {
    return hot.table.get(hot.presentKeys[next++ & (HotTable.PROBES - 1)]);
  }

  @Benchmark
  public Entry getMissingKey(HotTable hot) {
    return hot.table.get(hot.missingKeys[next++ & (HotTable.PROBES - 1)]);
  }
}
