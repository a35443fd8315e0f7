package dev.shale.storage.jmh;

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
 * The Bloom filter probe alone ({@code Table.mayContain}: Murmur3 of the key, then 7 probes of
 * the mapped bit array for 10 bits/key) on {@link HotTable}'s filter of 100,000 keys. A present
 * key makes every probe; an absent one stops at its first clear bit.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class BloomProbeBenchmark {
  private int next;

  @Benchmark
  public boolean probePresentKey(HotTable hot) {
    return hot.table.mayContain(hot.presentKeys[next++ & (HotTable.PROBES - 1)]);
  }

  @Benchmark
  public boolean probeMissingKey(HotTable hot) {
    return hot.table.mayContain(hot.missingKeys[next++ & (HotTable.PROBES - 1)]);
  }
}
