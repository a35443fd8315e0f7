package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.io.FileNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31, defect 5: a table file replaced by another valid table ({@code cp 000044.sst
 * 000041.sst}) was served as the table the manifest names, silently: a scan missed a quarter of
 * the keys and gets answered "absent". Opening now checks each table against the manifest's
 * record of it and, from table format 4, against the file number in its own footer
 * (docs/format.md, "Recovery at open", step 1), and refuses, naming the file and what differs,
 * deleting and rewriting nothing.
 */
class ReplacedTableTest {
  private static final int KEYS = 3_000;
  // Small memtables, so the fill flushes several tables; no compaction but compact()'s.
  private static final EngineOptions OPTIONS = EngineTesting.smallOptions().withL0Triggers(20, 30, 40);

  @TempDir Path dir;

  @Test
  void aTableCopiedOverAnotherIsRefusedNamingItAndNothingIsTouched() throws IOException {
    Path store = dir.resolve("store");
    fill(store, "key-");
    List<Path> tables = tables(store);
    assertThat(tables).as("tables to swap").hasSizeGreaterThanOrEqualTo(2);
    Path source = tables.getLast();
    Path replaced = tables.getFirst();
    Files.copy(source, replaced, StandardCopyOption.REPLACE_EXISTING);
    Map<String, byte[]> before = contents(store);

    assertThatThrownBy(() -> Engine.open(store, EngineOptions.defaults()).close())
        .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(replaced))
        .hasMessageContaining("not the table the manifest describes")
        .hasMessageContaining("its footer says it is table " + source.getFileName() + ", not " + replaced.getFileName());
    assertUnchanged(store, before);
  }

  @Test
  void aTableOfTheSameNumberFromAnotherStoreIsRefusedByTheManifestsRecordOfIt() throws IOException {
    // Two stores written alike but for their keys, then compacted: whatever order their flushes
    // took numbers in, as many were taken, so the compactions' tables carry the same numbers, and
    // only the manifest's record (size, records, versions, key range) tells them apart.
    Path store = dir.resolve("store");
    Path other = dir.resolve("other");
    fill(store, "key-");
    fill(other, "alt-");
    compact(store);
    compact(other);
    Path replaced = tables(store).getFirst();
    Path source = other.resolve(replaced.getFileName());
    assertThat(source).as("the other store's table of the same number").exists();
    Files.copy(source, replaced, StandardCopyOption.REPLACE_EXISTING);
    Map<String, byte[]> before = contents(store);

    assertThatThrownBy(() -> Engine.open(store, EngineOptions.defaults()).close())
        .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(replaced))
        .hasMessageContaining("not the table the manifest describes")
        .hasMessageContaining("its last key is 'alt-");
    assertUnchanged(store, before);
  }

  @Test
  void aStoreWhoseTablesAreTheirOwnOpensAndReadsEveryKey() throws IOException {
    Path store = dir.resolve("store");
    fill(store, "key-");
    try (Engine engine = Engine.open(store, EngineOptions.defaults())) {
      for (int i = 0; i < KEYS; i++) assertThat(engine.get(key("key-", i))).as("key %d", i).isNotNull();
    }
  }

  // Several flushed tables of level 0 (no compaction merges them: the trigger is out of reach).
  private static void fill(Path store, String prefix) {
    try (Engine engine = Engine.open(store, OPTIONS)) {
      for (int i = 0; i < KEYS; i++) engine.put(key(prefix, i), bytes("value-" + i + "-" + "v".repeat(60)));
      EngineTesting.await("the flushes", () -> engine.stats().immutableMemtables() == 0);
    }
  }

  private static void compact(Path store) {
    try (Engine engine = Engine.open(store, OPTIONS)) {
      engine.compact();
    }
  }

  private static byte[] key(String prefix, int i) {
    return bytes(prefix + "%05d".formatted(i));
  }

  private static List<Path> tables(Path store) {
    List<Path> tables = new ArrayList<>();
    for (String name : EngineTesting.fileNames(store)) {
      if (FileNames.parse(name).map(p -> p.kind() == FileNames.Kind.TABLE).orElse(false)) tables.add(store.resolve(name));
    }
    return tables;
  }

  // Every file of the store but LOCK, by name, with its bytes.
  private static Map<String, byte[]> contents(Path store) {
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (String name : EngineTesting.fileNames(store)) {
      if (name.equals(FileNames.LOCK)) continue;
      try {
        files.put(name, Files.readAllBytes(store.resolve(name)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return files;
  }

  private static void assertUnchanged(Path store, Map<String, byte[]> before) {
    Map<String, byte[]> after = contents(store);
    assertThat(after.keySet()).as("a refused open deletes and creates nothing").isEqualTo(before.keySet());
    for (String name : before.keySet()) {
      assertThat(Arrays.equals(after.get(name), before.get(name))).as("%s is rewritten", name).isTrue();
    }
  }
}
