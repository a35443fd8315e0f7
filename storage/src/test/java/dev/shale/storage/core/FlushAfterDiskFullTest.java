package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.DiskFullException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.ErrorInjectingVfs;
import dev.shale.storage.ErrorInjectingVfs.Errno;
import dev.shale.storage.ErrorInjectingVfs.Fault;
import dev.shale.storage.FreeSpaceVfs;
import dev.shale.storage.ManualClockEnv;
import dev.shale.storage.VfsOp;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Once space is freed, writes refused because a flush found the disk full resume at once (a
 * defect found by DiskFullTest failing now and then): the flush thread waited out its backoff,
 * which doubles up to {@link Flusher#MAX_RETRY_MILLIS} (10 s) per failure, and writes were refused
 * all that while with the space already there. Now a refused write reads the free space (at most
 * every {@link DiskSpace#PROBE_NANOS}) and, seeing room, makes the flush retry at once.
 *
 * <p>Timed waits run out on the test's clock ({@link ManualClockEnv#timedWaitsOnThisClock}), which
 * moves only by {@link DiskSpace#PROBE_NANOS} after the space is freed: less than the backoff the
 * flush thread is in by then, so only the refused write's nudge can make it retry.
 */
class FlushAfterDiskFullTest {
  private static final long FREE_BYTES = 1L << 40;
  private static final long PROBE_MILLIS = DiskSpace.PROBE_NANOS / 1_000_000;

  @TempDir Path dir;

  private final ErrorInjectingVfs vfs = new ErrorInjectingVfs(new FreeSpaceVfs(FREE_BYTES), 0);
  private final ManualClockEnv env = new ManualClockEnv(1_750_000_000_000L, vfs).timedWaitsOnThisClock();
  private final EngineOptions options = EngineTesting.smallOptions().withMaxImmutableMemtables(1).withEnv(env);

  @Test
  void writesRefusedForAFlushThatFoundTheDiskFullResumeAsSoonAsThereIsRoom() {
    try (Engine engine = Engine.open(dir, options)) {
      env.advanceMillis(1_000); // readings of the free space are due from now on
      vfs.inject(Fault.on("*.sst", VfsOp.APPEND).errno(Errno.ENOSPC)); // tables no longer fit
      // A failed flush makes the disk count as full until the next reading: writes that need no
      // flush are refused until then too; moving the clock lets them in until one needs the flush.
      EngineTesting.await("a write refused for the flush that found the disk full", () -> {
        String refusal = refusal(engine);
        if (refusal != null && !refusal.contains("a flush found no room")) env.advanceMillis(PROBE_MILLIS);
        return refusal != null && refusal.contains("a flush found no room");
      });
      assertThat(engine.stats().flushFailures()).as("flush attempts that found the disk full").isPositive();

      // The flush thread's backoff doubles with each failure: let it fail once more, so that the
      // clock step below (one probe interval) is shorter than the backoff it then waits out.
      // (Before the fix its first backoff runs out; after it, a refused write's reading nudges it.)
      long failures = engine.stats().flushFailures();
      env.advanceMillis(Flusher.FIRST_RETRY_MILLIS);
      EngineTesting.await("the flush retried and failed again", () -> !tryPut(engine) && engine.stats().flushFailures() > failures);

      vfs.clear(); // space is freed
      env.advanceMillis(PROBE_MILLIS); // a refused write may read the free space again
      EngineTesting.await("writes taken again, the clock short of the flush's backoff", () -> tryPut(engine));
      assertThat(engine.get(bytes("after"))).isNotNull();
      assertThat(engine.health().writeRefusal()).isNull();
    }
  }

  private static boolean tryPut(Engine engine) {
    return refusal(engine) == null;
  }

  // Puts a value; null if it was taken, else why it was refused.
  private static @Nullable String refusal(Engine engine) {
    try {
      engine.put(bytes("after"), bytes("x".repeat(1_000)));
      return null;
    } catch (DiskFullException e) {
      return String.valueOf(e.getMessage());
    }
  }
}
