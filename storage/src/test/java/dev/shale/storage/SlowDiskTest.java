package dev.shale.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writers wait while the engine switches log segments (three fsyncs); on a slow disk that wait
 * is logged with its parts, so an operator can tell a slow disk from an overloaded node.
 */
class SlowDiskTest {
  private static final long SLOW_MILLIS = 150;

  @TempDir Path dir;

  /** A filesystem whose directory fsyncs take {@link #SLOW_MILLIS}: a disk slow to commit metadata. */
  private static final class SlowDirectorySyncs extends ForwardingVfs {
    SlowDirectorySyncs() {
      super(Vfs.real());
    }

    @Override
    protected <T> T around(VfsOp op, Path file, IoCall<T> call) throws IOException {
      if (op == VfsOp.SYNC_DIRECTORY) {
        try {
          Thread.sleep(SLOW_MILLIS); // the injected slowness itself, not a wait for a condition
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return call.call();
    }
  }

  @Test
  @Timeout(60)
  void aSlowSegmentSwitchIsLoggedWithItsParts() {
    List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    Logger logger = Logger.getLogger("dev.shale.storage.core.WriteQueue");
    Handler handler = new Handler() {
      @Override
      public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.WARNING.intValue()) warnings.add(record);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    logger.addHandler(handler);
    EngineOptions options = EngineOptions.defaults().withMemtableSizeBytes(64 << 10).withEnv(Env.real().withVfs(new SlowDirectorySyncs()));
    try (Engine engine = Engine.open(dir, options)) {
      byte[] value = new byte[1_000];
      for (int i = 0; engine.stats().flushes() + engine.stats().immutableMemtables() == 0; i++) {
        assertThat(i).as("writes before the first memtable froze").isLessThan(10_000);
        engine.put(("k" + i).getBytes(StandardCharsets.UTF_8), value);
      }
      assertThat(warnings).extracting(LogRecord::getMessage).anySatisfy(m -> assertThat(m)
          .startsWith("switching log segments took").contains("writers waiting").contains("creating 0000")
          .contains(".wal").contains("fsync of 000001.wal"));
    } finally {
      logger.removeHandler(handler);
    }
  }
}
