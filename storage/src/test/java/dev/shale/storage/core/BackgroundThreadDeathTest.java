package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.EngineHealth;
import dev.shale.storage.Entry;
import dev.shale.storage.StorageException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A background thread ended by an Error (an OutOfMemoryError of a 16 MiB value's copy in a
 * 128 MiB heap, as CI found) made no sound: the store said it was healthy and took writes, while
 * no memtable was flushed any more (writes then stalled to their deadline, a flush waited
 * forever) or no table compacted. Now the engine refuses writes from then on, naming the thread
 * and its error, and wakes whoever waits for room or a flush; reads go on, and a reopen has
 * every write.
 */
class BackgroundThreadDeathTest {
  private static final int KEYS = 2_000;
  private static final long ANSWER_SECONDS = 30;

  @TempDir Path dir;

  @Test
  void aFlushThreadKilledByAnErrorRefusesWritesAndWakesAWaitingFlush() throws Exception {
    AtomicBoolean armed = new AtomicBoolean(true);
    Hooks hooks = Hooks.withCrashPoints(name -> {
      if (name.equals("flush.afterTableWritten") && armed.compareAndSet(true, false)) {
        throw new OutOfMemoryError("injected: Java heap space");
      }
    });
    try (LsmEngine engine = LsmEngine.open(dir, EngineTesting.smallOptions(), hooks)) {
      engine.put(bytes("before"), bytes("value"));
      // compact() first waits for the flush the dead thread will never do: it must be told instead.
      assertThat(failureWithin(engine::compact)).as("compact() waiting on the dead flush thread")
          .isInstanceOf(StorageException.class).hasMessageContaining("OutOfMemoryError");
      assertRefusesWrites(engine, "shale-flush-");
      assertThat(engine.get(bytes("before")).value()).as("reads go on").isEqualTo(bytes("value"));
    }
    try (LsmEngine reopened = LsmEngine.open(dir, EngineTesting.smallOptions(), Hooks.none())) {
      assertThat(reopened.health().writeRefusal()).as("a restart brings the thread back").isNull();
      assertThat(reopened.get(bytes("before")).value()).isEqualTo(bytes("value"));
    }
  }

  @Test
  void aCompactionThreadKilledByAnErrorRefusesWrites() throws Exception {
    AtomicBoolean armed = new AtomicBoolean(true);
    Hooks hooks = Hooks.withCrashPoints(name -> {
      if (name.equals("compaction.afterOutputWritten") && armed.compareAndSet(true, false)) {
        throw new OutOfMemoryError("injected: Java heap space");
      }
    });
    try (LsmEngine engine = LsmEngine.open(dir, EngineTesting.smallOptions().withL0Triggers(50, 60, 70), hooks)) {
      for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < KEYS; i++) engine.put(key(i), value(pass, i));
      }
      assertThat(failureWithin(engine::compact)).as("compact() on the compaction thread that dies")
          .isInstanceOf(StorageException.class).hasMessageContaining("compaction thread died");
      assertThat(armed).as("a compaction reached its injected error").isFalse();
      assertRefusesWrites(engine, "shale-compact-");
      assertThat(failureWithin(engine::compact)).as("compact() once the thread is gone")
          .isInstanceOf(StorageException.class);
    }
    try (LsmEngine reopened = LsmEngine.open(dir, EngineTesting.smallOptions(), Hooks.none())) {
      for (int i = 0; i < KEYS; i += 97) {
        Entry found = reopened.get(key(i));
        assertThat(found).as("key %d after a reopen", i).isNotNull();
      }
    }
  }

  private static void assertRefusesWrites(LsmEngine engine, String threadPrefix) {
    EngineTesting.await("the engine refuses writes", () -> engine.health().writeRefusal() != null);
    EngineHealth health = engine.health();
    assertThat(health.writeRefusal()).as("what the status says")
        .contains("the background thread " + threadPrefix).contains("OutOfMemoryError");
    assertThat(health.refusalClearsByItself()).as("only a restart clears it").isFalse();
    assertThatThrownBy(() -> engine.put(bytes("after"), bytes("value")))
        .as("a write after the thread died")
        .isInstanceOf(StorageException.class).hasMessageContaining("OutOfMemoryError");
  }

  /** What {@code call} fails with, within a deadline: a call left waiting fails the test instead of hanging it. */
  private static Throwable failureWithin(Runnable call) throws InterruptedException {
    CompletableFuture<Void> done = CompletableFuture.runAsync(call);
    try {
      done.get(ANSWER_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      throw new AssertionError("still waiting after " + ANSWER_SECONDS + " s", e);
    }
    throw new AssertionError("succeeded");
  }

  private static byte[] key(int i) {
    return bytes(String.format("key%06d", i));
  }

  private static byte[] value(int pass, int i) {
    return bytes("value-" + pass + "-" + i);
  }
}
