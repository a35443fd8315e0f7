package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a caller of {@link LsmEngine#compact} finds on disk once it returns. */
class FullCompactionTest {
  private static final int KEYS = 2_000;

  @TempDir Path dir;

  /**
   * The compaction thread is held just after it answered compact(): the tables it replaced must
   * be gone already, or a caller measuring the store (the engine benchmark's space after
   * readcompacted) counts them, or not, depending on which thread the scheduler runs first.
   */
  @Test
  void theTablesAFullCompactionReplacedAreDeletedWhenCompactReturns() throws Exception {
    AtomicBoolean armed = new AtomicBoolean();
    CountDownLatch measured = new CountDownLatch(1);
    Hooks hooks = Hooks.withCrashPoints(name -> {
      if (!name.equals("compaction.afterFullAnswered") || !armed.get()) return;
      try {
        measured.await(EngineTesting.WAIT_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    try (LsmEngine engine = LsmEngine.open(dir, EngineTesting.smallOptions(), hooks)) {
      for (int i = 0; i < KEYS; i++) engine.put(key(i), new byte[100]);
      engine.compact();
      // The same keys again: the second full compaction merges the new level-0 table with the
      // first one's output, and both are replaced.
      for (int i = 0; i < KEYS; i++) engine.put(key(i), new byte[100]);
      armed.set(true);
      engine.compact();
      try {
        assertThat(tableFiles()).as("table files once compact() returned")
            .isEqualTo(engine.stats().tables());
      } finally {
        measured.countDown();
      }
    }
  }

  private long tableFiles() {
    return EngineTesting.fileNames(dir).stream().filter(n -> n.endsWith(".sst")).count();
  }

  private static byte[] key(int i) {
    return bytes("key-%05d".formatted(i));
  }
}
