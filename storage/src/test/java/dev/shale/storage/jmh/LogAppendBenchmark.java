package dev.shale.storage.jmh;

import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import dev.shale.storage.wal.LogWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link LogWriter#append} of 116-byte records (16-byte key, 100-byte value) to a log segment:
 * framing, crc32c, and the write() to the OS that every acknowledged write of SyncMode.INTERVAL
 * costs (no fsync here, as in that mode). One record per append (a lone writer), or a group of
 * {@value #GROUP} (writers sharing a group commit); figures are per record. A fresh segment
 * per iteration, deleted after it, keeps the disk use to one iteration's worth.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class LogAppendBenchmark {
  static final int GROUP = 16;

  private List<Entry> one;
  private List<Entry> group;
  private Path directory;
  private LogWriter log;
  private long segment;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    SplittableRandom random = new SplittableRandom(42);
    group = new ArrayList<>();
    for (int i = 0; i < GROUP; i++) group.add(BenchKeys.entry(random.nextLong(1_000_000_000L), 100, random));
    one = List.of(group.getFirst());
    directory = Files.createTempDirectory("shale-jmh-log");
  }

  @Setup(Level.Iteration)
  public void openSegment() throws IOException {
    segment++;
    log = LogWriter.create(Vfs.real(), directory.resolve(segment + ".wal"), segment);
  }

  @TearDown(Level.Iteration)
  public void deleteSegment() throws IOException {
    log.close();
    Files.delete(log.path());
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    Files.delete(directory);
  }

  @Benchmark
  public void appendOneRecord() throws IOException {
    log.append(one);
  }

  @Benchmark
  @OperationsPerInvocation(GROUP)
  public void appendGroupOf16() throws IOException {
    log.append(group);
  }
}
