package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LsmEngine#dropKeys}: the dropped keys leave no record, not even a tombstone; the others stay as they were. */
class DropKeysTest {
  private static final int KEYS = 3_000;

  @TempDir Path dir;

  @Test
  void droppedKeysLeaveNothingWhereverTheirRecordsWereAndTheOthersKeepTheirRecords() {
    List<Entry> kept = new ArrayList<>();
    try (LsmEngine engine = LsmEngine.open(dir, EngineTesting.smallOptions(), Hooks.none())) {
      // Records in the last level, in level 0 and in the memtable, values and tombstones.
      for (int i = 0; i < KEYS; i++) engine.put(key(i), bytes("old-" + i));
      engine.compact();
      for (int i = 0; i < KEYS; i += 3) engine.put(key(i), bytes("new-" + i));
      for (int i = 1; i < KEYS; i += 7) engine.delete(key(i));
      engine.dropKeys(key -> dropped(key));
      for (int i = 0; i < KEYS; i++) {
        Entry entry = engine.get(key(i));
        if (dropped(key(i))) {
          assertThat(entry).as("key %d", i).isNull();
        } else {
          assertThat(entry).as("key %d", i).isNotNull();
          kept.add(entry);
        }
      }
      assertThat(allRecords(engine)).isEqualTo(kept);
    }
    try (LsmEngine reopened = LsmEngine.open(dir, EngineTesting.smallOptions(), Hooks.none())) {
      assertThat(allRecords(reopened)).as("after a restart: the log does not bring them back").isEqualTo(kept);
    }
  }

  /** Every other hundred keys: whole stretches, as a range a node stops replicating. */
  private static boolean dropped(byte[] key) {
    int i = Integer.parseInt(new String(key, java.nio.charset.StandardCharsets.UTF_8).substring(4));
    return (i / 100) % 2 == 0;
  }

  private static List<Entry> allRecords(LsmEngine engine) {
    List<Entry> records = new ArrayList<>();
    try (EntryIterator it = engine.scan(new byte[0], null, true)) {
      it.forEachRemaining(records::add);
    }
    return records;
  }

  private static byte[] key(int i) {
    return bytes("key-%05d".formatted(i));
  }
}
