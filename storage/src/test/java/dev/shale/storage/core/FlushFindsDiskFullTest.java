package dev.shale.storage.core;

import static dev.shale.storage.core.DiskFullTest.VALUE_BYTES;
import static dev.shale.storage.core.DiskFullTest.key;
import static dev.shale.storage.core.DiskFullTest.tryPut;
import static dev.shale.storage.core.DiskFullTest.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.DiskFullException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.storage.ErrorInjectingVfs;
import dev.shale.storage.ErrorInjectingVfs.Errno;
import dev.shale.storage.ErrorInjectingVfs.Fault;
import dev.shale.storage.VfsOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write that would wait for a flush which found the disk full is refused with a
 * DiskFullException, not left to stall until its timeout; writes resume once the flush has room.
 *
 * <p>The defect: DiskFullTest, on a machine busy enough that the flush thread fell behind, had its
 * writer stall for the whole 60 s stall timeout (2 frozen memtables waiting, their flushes failing
 * with ENOSPC) and get a WriteStallException instead of the DiskFullException a full disk gives.
 * Here the flush gate forces that order: the writer stalls first, then the flush fails.
 */
class FlushFindsDiskFullTest {
  @TempDir Path dir;

  @Test
  void aWriterStalledOnAFlushThatFindsTheDiskFullIsRefusedAndWritesResumeOnceItHasRoom()
      throws InterruptedException {
    ErrorInjectingVfs vfs = new ErrorInjectingVfs(0);
    // The stall timeout (60 s) is far longer than the test: a writer that stalls on the failing
    // flush instead of being refused ends in a WriteStallException, which fails the test.
    EngineOptions options = EngineTesting.smallOptions()
        .withMaxImmutableMemtables(1)
        .withDiskReserveBytes(0)
        .withEnv(Env.real().withVfs(vfs));
    FlushGate gate = new FlushGate();
    gate.hold();
    List<Integer> acknowledged = new ArrayList<>();
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.withGate(gate))) {
      vfs.inject(Fault.on("*.sst", VfsOp.APPEND).errno(Errno.ENOSPC));
      AtomicReference<RuntimeException> refusal = new AtomicReference<>();
      Thread writer = Thread.ofPlatform().start(() -> refusal.set(writeUntilRefused(engine, acknowledged)));
      EngineTesting.await("the writer stalls behind the held flush", () -> engine.stats().writeStalls() == 1);

      gate.release(); // the flush runs, finds the disk full, and is retried with backoff
      writer.join();
      int refused = acknowledged.size();
      assertThat(refusal.get())
          .isInstanceOf(DiskFullException.class)
          .hasMessageContaining("a flush found no room")
          .hasMessageContaining("nothing was written");
      assertThat(engine.get(key(refused))).as("the refused write's key").isNull();
      assertThat(engine.health().writeRefusal()).contains("disk");
      assertThat(engine.health().refusalClearsByItself()).isTrue();
      // A later writer is refused at once too, rather than stalling.
      assertThatThrownBy(() -> engine.put(key(refused), value(refused)))
          .isInstanceOf(DiskFullException.class);
      for (int i : acknowledged) assertThat(engine.get(key(i)).value()).isEqualTo(value(i));

      vfs.clear(); // space is freed
      EngineTesting.await("writes resume", () -> tryPut(engine, refused));
      acknowledged.add(refused);
      assertThat(engine.health().writeRefusal()).isNull();
    }
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      for (int i : acknowledged) assertThat(engine.get(key(i)).value()).isEqualTo(value(i));
    }
  }

  // Writes keys 0, 1, ... until one throws; returns what it threw.
  private static RuntimeException writeUntilRefused(Engine engine, List<Integer> acknowledged) {
    for (int i = 0; i < 10_000; i++) {
      try {
        engine.put(key(i), value(i));
        acknowledged.add(i);
      } catch (RuntimeException e) {
        return e;
      }
    }
    return new IllegalStateException("10000 writes of " + VALUE_BYTES + " bytes fit with flushes held");
  }
}
