package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.MemoryRead;
import dev.shale.storage.ReadRecord;
import dev.shale.storage.ReadRecordingVfs;
import java.nio.file.Path;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Engine#readFromMemory}: the answer {@link Engine#read} gives when the memtables and the
 * block cache hold what the read needs, with no byte read from a file; {@link MemoryRead#NEEDS_DISK}
 * when a block is not cached, having read nothing and counted nothing.
 */
class MemoryReadTest {
  private static final int LARGE = Engine.LEND_MIN_VALUE_BYTES * 2;

  @TempDir Path dir;
  private final ReadRecordingVfs files = new ReadRecordingVfs();

  @Test
  void aRecordInAMemtableIsAnsweredFromMemory() {
    try (LsmEngine engine = open(EngineOptions.defaults())) {
      long version = engine.put(bytes("k"), bytes("v"));
      engine.delete(bytes("gone"));

      assertThat(copied(engine.readFromMemory(bytes("k")))).isEqualTo(new Entry(bytes("k"), version, bytes("v")));
      Entry tombstone = copied(engine.readFromMemory(bytes("gone")));
      assertThat(tombstone).isNotNull();
      assertThat(tombstone.value()).isNull();
      assertThat(engine.readFromMemory(bytes("never"))).isEqualTo(new MemoryRead.Answered(null));
    }
  }

  @Test
  void aTableBlockIsReadFromTheDiskOnlyByReadAndThenAnsweredFromTheCache() {
    try (LsmEngine engine = open(EngineOptions.defaults().withBlockCacheBytes(1 << 20))) {
      long version = engine.put(bytes("k"), bytes("v"));
      engine.put(bytes("z"), bytes("last"));
      engine.compact(); // one table; compactions put no block in the cache
      files.clear();
      long readsBefore = engine.stats().blockReads();

      assertThat(engine.readFromMemory(bytes("k"))).isSameAs(MemoryRead.NEEDS_DISK);
      assertThat(files.reads()).as("a read from memory reads no file").isEmpty();
      assertThat(engine.stats().blockReads()).as("and counts no block read").isEqualTo(readsBefore);

      try (ReadRecord read = engine.read(bytes("k"))) { // loads the block, and offers it to the cache
        assertThat(read.version()).isEqualTo(version);
      }
      assertThat(files.reads()).hasSize(1);
      files.clear();
      long hitsBefore = engine.stats().blockCacheHits();

      assertThat(copied(engine.readFromMemory(bytes("k")))).isEqualTo(new Entry(bytes("k"), version, bytes("v")));
      assertThat(files.reads()).isEmpty();
      assertThat(engine.stats().blockReads()).isEqualTo(readsBefore + 2);
      assertThat(engine.stats().blockCacheHits()).isEqualTo(hitsBefore + 1);
      // A key the index places in no block, or below the table's first key, needs no block at all.
      assertThat(engine.readFromMemory(bytes("a"))).isEqualTo(new MemoryRead.Answered(null));
    }
  }

  @Test
  void withoutABlockCacheEveryTableReadNeedsTheDisk() {
    try (LsmEngine engine = open(EngineOptions.defaults().withBlockCacheBytes(0))) {
      engine.put(bytes("k"), bytes("v"));
      engine.compact();
      engine.read(bytes("k")).close();
      files.clear();
      assertThat(engine.readFromMemory(bytes("k"))).isSameAs(MemoryRead.NEEDS_DISK);
      assertThat(files.reads()).isEmpty();
      long newer = engine.put(bytes("k"), bytes("newer"));
      assertThat(copied(engine.readFromMemory(bytes("k"))))
          .as("a memtable record newer than every record of the table spares its block")
          .isEqualTo(new Entry(bytes("k"), newer, bytes("newer")));
      assertThat(files.reads()).isEmpty();
    }
  }

  @Test
  void aLargeValueInACachedBlockIsLentAsReadLendsIt() {
    try (LsmEngine engine = open(EngineOptions.defaults().withBlockCacheBytes(4L << 20))) {
      byte[] value = new byte[LARGE];
      Arrays.fill(value, (byte) 7);
      engine.put(bytes("k"), value);
      engine.compact();
      engine.read(bytes("k")).close();

      MemoryRead answered = engine.readFromMemory(bytes("k"));
      assertThat(answered).isInstanceOf(MemoryRead.Answered.class);
      try (ReadRecord record = ((MemoryRead.Answered) answered).record()) {
        assertThat(record).isInstanceOf(ReadRecord.Lent.class);
        assertThat(((ReadRecord.Lent) record).value().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).isEqualTo(value);
        assertThat(engine.stats().valueLeases()).isEqualTo(1);
      }
      assertThat(engine.stats().valueLeases()).isZero();
    }
  }

  private LsmEngine open(EngineOptions options) {
    return LsmEngine.open(dir, options.withEnv(options.env().withVfs(files)), Hooks.none());
  }

  // The record of an answered read, copied; null if the store has none.
  private static @Nullable Entry copied(MemoryRead read) {
    assertThat(read).isInstanceOf(MemoryRead.Answered.class);
    ReadRecord record = ((MemoryRead.Answered) read).record();
    if (record == null) return null;
    assertThat(record).isInstanceOf(ReadRecord.Copied.class);
    return ((ReadRecord.Copied) record).entry();
  }
}
