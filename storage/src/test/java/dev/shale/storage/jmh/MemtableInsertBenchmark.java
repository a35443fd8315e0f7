package dev.shale.storage.jmh;

import dev.shale.storage.Entry;
import dev.shale.storage.memtable.Memtable;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link Memtable#add} of records with random keys (100-byte values) into an empty memtable,
 * {@value #RECORDS} records per invocation, so a figure is the mean cost of an insert into a
 * memtable growing from empty to {@value #RECORDS} records (about 11 MiB: most of a default
 * 16 MiB memtable).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
@State(Scope.Thread)
public class MemtableInsertBenchmark {
  static final int RECORDS = 65_536;

  private Entry[] randomOrder;
  private Entry[] keyOrder;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    randomOrder = new Entry[RECORDS];
    keyOrder = new Entry[RECORDS];
    for (int i = 0; i < RECORDS; i++) {
      keyOrder[i] = BenchKeys.entry(i, 100, random);
      randomOrder[i] = BenchKeys.entry(random.nextLong(1_000_000_000L), 100, random);
    }
  }

  /** Inserts in random key order (fillrandom's memtable work). */
  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public int insertRandomKeys() {
    return insertAll(randomOrder);
  }

  /** Inserts in ascending key order (fillseq's memtable work). */
  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public int insertSequentialKeys() {
    return insertAll(keyOrder);
  }

  // Returns what the memtable holds, so the inserts are consumed; frees its native memory.
  private static int insertAll(Entry[] entries) {
    Memtable memtable = new Memtable();
    try {
      for (Entry entry : entries) memtable.add(entry);
      return memtable.entryCount();
    } finally {
      memtable.release();
    }
  }
}
