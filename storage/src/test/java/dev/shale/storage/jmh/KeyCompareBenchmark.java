package dev.shale.storage.jmh;

import dev.shale.storage.Keys;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link Keys#compare} on 16-byte decimal keys: the comparison behind every skip-list step,
 * index search and block search. Keys of a large store share a long prefix of zeros, so a
 * comparison reads most of both keys; equal keys read all of them.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class KeyCompareBenchmark {
  private static final int KEYS = 1024; // a power of two: the index wraps with a mask

  private byte[][] keys;
  private byte[][] copies;
  private int next;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    keys = new byte[KEYS][];
    copies = new byte[KEYS][];
    for (int i = 0; i < KEYS; i++) {
      keys[i] = BenchKeys.key(random.nextLong(10_000_000));
      copies[i] = keys[i].clone();
    }
  }

  /** Two different random keys (of a 10-million key space: a 9-byte common prefix of zeros). */
  @Benchmark
  public int compareDifferentKeys() {
    int i = next++ & (KEYS - 1);
    return Keys.compare(keys[i], keys[(i + 1) & (KEYS - 1)]);
  }

  /** A key and an equal copy of it (what a skip-list or block search ends with). */
  @Benchmark
  public int compareEqualKeys() {
    int i = next++ & (KEYS - 1);
    return Keys.compare(keys[i], copies[i]);
  }
}
