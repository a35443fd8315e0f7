package dev.shale.bench;

import dev.shale.bench.OperationLoop.Measured;
import dev.shale.bench.OperationLoop.Operation;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;

/** The operations of each workload, on one open store: the same code for every engine. */
final class Workloads {
  /** seekrandom reads this many records after each seek, as db_bench's --seek_nexts=100. */
  static final int NEXTS_PER_SEEK = 100;
  /** The first possible key: every key of the benchmark sorts after it. */
  private static final byte[] FIRST_KEY = {0};

  private record Write(byte[] key, byte[] value) {}

  private final EngineBenchConfig config;
  private final ValueSource values;
  private final KeyPermutation permutation;
  private final OperationLoop loop;

  Workloads(EngineBenchConfig config, ValueSource values) {
    this.config = config;
    this.values = values;
    this.permutation = new KeyPermutation(config.keys(), config.seed());
    this.loop = new OperationLoop(config.threads(), config.seed());
  }

  /** Logical bytes of one put: key and value. */
  long putBytes() {
    return (long) KeyFormat.KEY_BYTES + values.valueSizeBytes();
  }

  /** {@code ops} puts of keys 0..ops-1 in order, then {@code ops} gets of them. */
  void warmUp(BenchStore store, long ops) {
    loop.run(ops, puts(store, (i, random) -> i));
    loop.run(ops, gets(store, (i, random) -> KeyFormat.key(random.nextLong(ops))));
  }

  Measured fillSequential(BenchStore store) {
    return loop.run(config.keys(), puts(store, (i, random) -> i));
  }

  Measured fillRandom(BenchStore store) {
    return loop.run(config.keys(), puts(store, (i, random) -> permutation.apply(i)));
  }

  Measured overwrite(BenchStore store) {
    return loop.run(config.keys(), puts(store, (i, random) -> random.nextLong(config.keys())));
  }

  Measured readRandom(BenchStore store) {
    return loop.run(config.reads(), gets(store, (i, random) -> KeyFormat.key(random.nextLong(config.keys()))));
  }

  Measured readMissing(BenchStore store) {
    return loop.run(config.reads(), gets(store, (i, random) -> KeyFormat.missingKey(random.nextLong(config.keys()))));
  }

  Measured seekRandom(BenchStore store) {
    return loop.run(config.seeks(), new Operation<byte[]>() {
      @Override
      public byte[] prepare(long index, SplittableRandom random) {
        return KeyFormat.key(random.nextLong(config.keys()));
      }

      @Override
      public boolean execute(byte[] start) {
        try (BenchStore.Cursor cursor = store.scan(start)) {
          int read = 0;
          while (read < NEXTS_PER_SEEK && cursor.next()) read++;
          return read > 0;
        }
      }
    });
  }

  Measured deleteRandom(BenchStore store) {
    return loop.run(config.keys(), new Operation<byte[]>() {
      @Override
      public byte[] prepare(long index, SplittableRandom random) {
        return KeyFormat.key(random.nextLong(config.keys()));
      }

      @Override
      public boolean execute(byte[] key) {
        store.delete(key);
        return false;
      }
    });
  }

  /** One scan of the whole store on one thread; each record read is one timed operation. */
  Measured scanAll(BenchStore store) {
    Histogram latencies = new Histogram(OperationLoop.SIGNIFICANT_DIGITS);
    long records = 0;
    long startNanos = System.nanoTime();
    try (BenchStore.Cursor cursor = store.scan(FIRST_KEY)) {
      while (true) {
        long opStart = System.nanoTime();
        boolean more = cursor.next();
        latencies.recordValue(System.nanoTime() - opStart);
        if (!more) break;
        records++;
      }
    }
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    return new Measured(records, seconds, latencies, records);
  }

  /** Which key index operation {@code i} writes. */
  private interface KeyChoice {
    long index(long i, SplittableRandom random);
  }

  private interface KeyMaker {
    byte[] key(long i, SplittableRandom random);
  }

  private Operation<Write> puts(BenchStore store, KeyChoice keys) {
    return new Operation<>() {
      @Override
      public Write prepare(long index, SplittableRandom random) {
        return new Write(KeyFormat.key(keys.index(index, random)), values.next(random));
      }

      @Override
      public boolean execute(Write write) {
        store.put(write.key(), write.value());
        return false;
      }
    };
  }

  private static Operation<byte[]> gets(BenchStore store, KeyMaker keys) {
    return new Operation<>() {
      @Override
      public byte[] prepare(long index, SplittableRandom random) {
        return keys.key(index, random);
      }

      @Override
      public boolean execute(byte[] key) {
        return store.get(key);
      }
    };
  }
}
