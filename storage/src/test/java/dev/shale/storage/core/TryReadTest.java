package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.ReadAttempt;
import dev.shale.storage.ReadRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Engine#tryRead}: the record {@link Engine#read} would return, when nothing of it has to
 * come from the disk; nothing, when a table's block that holds it is not in the page cache.
 */
class TryReadTest {
  @TempDir Path dir;

  @Test
  void readsFromTheMemtableAndSaysWhenThereIsNoRecord() {
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      engine.put(bytes("a"), bytes("value"));
      engine.delete(bytes("b"));
      assertThat(valueOf(engine.tryRead(bytes("a")))).isEqualTo(bytes("value"));
      ReadAttempt tombstone = engine.tryRead(bytes("b"));
      assertThat(tombstone.done()).isTrue();
      assertThat(((ReadRecord.Copied) tombstone.record()).entry().value()).as("a tombstone").isNull();
      ReadAttempt absent = engine.tryRead(bytes("c"));
      assertThat(absent.done()).isTrue();
      assertThat(absent.record()).isNull();
    }
  }

  @Test
  @Timeout(60)
  void readsATableBlockOnlyOnceItIsInThePageCache() throws Exception {
    assumeThat(Files.getFileStore(dir).type()).as("a file system whose page cache can be dropped").isNotEqualTo("tmpfs");
    EngineOptions options = EngineTesting.smallOptions();
    try (Engine engine = Engine.open(dir, options)) {
      byte[] value = new byte[100];
      for (int i = 0; i < 5_000; i++) engine.put(bytes(String.format("k%05d", i)), value);
      engine.compact(); // every record in tables, written and synced: clean pages of the cache
      for (Path table : tables()) dropFromPageCache(table);

      byte[] key = bytes("k00000"); // in the first block, far from the index at the table's end
      assertThat(engine.tryRead(key)).as("a read of a block the cache does not hold").isEqualTo(ReadAttempt.WOULD_WAIT);
      try (ReadRecord read = engine.read(key)) {
        assertThat(((ReadRecord.Copied) read).entry().value()).isEqualTo(value);
      }
      assertThat(valueOf(engine.tryRead(key))).as("once the block is in the cache").isEqualTo(value);
      assertThat(engine.tryRead(bytes("absent")).done()).as("a key the filters rule out").isTrue();
    }
  }

  private static byte[] valueOf(ReadAttempt attempt) {
    assertThat(attempt.done()).isTrue();
    try (ReadRecord record = attempt.record()) {
      return ((ReadRecord.Copied) record).entry().value();
    }
  }

  private List<Path> tables() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".sst")).toList();
    }
  }

  // GNU dd's documented way to drop a file's pages from the cache: posix_fadvise(DONTNEED) over
  // the whole file. Pages the process has mapped stay; a table's data blocks were never touched.
  private static void dropFromPageCache(Path file) throws IOException, InterruptedException {
    Process dd = new ProcessBuilder("dd", "if=" + file, "iflag=nocache", "count=0")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    assertThat(dd.waitFor()).as("dd's exit status").isZero();
  }
}
