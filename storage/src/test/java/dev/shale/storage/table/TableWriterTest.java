package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableWriterTest {
  @TempDir Path dir;

  @Test
  void rejectsEmptyInputWithoutCreatingAFile() {
    Path file = dir.resolve("000001.sst");
    assertThatThrownBy(() -> TableWriter.write(Vfs.real(), file, 1, Collections.emptyIterator(), 4096, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no records");
    assertThat(file).doesNotExist();
  }

  @Test
  void rejectsKeysOutOfOrderAndDeletesThePartialFile() {
    Path file = dir.resolve("000002.sst");
    List<Entry> entries = List.of(value("a"), value("c"), value("b"));
    assertThatThrownBy(() -> TableWriter.write(Vfs.real(), file, 2, entries.iterator(), 4096, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sorts before the previous key c");
    assertThat(file).doesNotExist();
  }

  @Test
  void rejectsDuplicateKeys() {
    Path file = dir.resolve("000003.sst");
    List<Entry> entries = List.of(value("a"), value("b"), new Entry(bytes("b"), 9, bytes("x")));
    assertThatThrownBy(() -> TableWriter.write(Vfs.real(), file, 3, entries.iterator(), 4096, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("repeats the previous key");
    assertThat(file).doesNotExist();
  }

  @Test
  void ordersKeysAsUnsignedBytes() throws IOException {
    // 0x7F < 0x80 < 0xFF unsigned, though 0x80 and 0xFF are negative as Java bytes.
    List<Entry> entries = List.of(
        new Entry(new byte[] {0x7F}, 1, new byte[0]),
        new Entry(new byte[] {(byte) 0x80}, 1, new byte[0]),
        new Entry(new byte[] {(byte) 0xFF}, 1, new byte[0]));
    Path file = dir.resolve("000004.sst");
    TableWriter.write(Vfs.real(), file, 4, entries.iterator(), 4096, 10);
    try (Table table = Table.open(Vfs.real(), file, 4)) {
      assertThat(TableRoundTripTest.toList(table.iterator())).containsExactlyElementsOf(entries);
    }
  }

  @Test
  void neverOverwritesAnExistingFile() throws IOException {
    Path file = dir.resolve("000005.sst");
    Files.write(file, bytes("precious"));
    assertThatThrownBy(() -> TableWriter.write(Vfs.real(), file, 5, List.of(value("a")).iterator(), 4096, 10))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(file).hasContent("precious");
  }

  @Test
  void returnsMetadataOfWhatItWrote() throws IOException {
    Path file = dir.resolve("000006.sst");
    List<Entry> entries = List.of(new Entry(bytes("a"), 30, bytes("1")), Entry.tombstone(bytes("m"), 10), new Entry(bytes("z"), 20, bytes("")));
    TableMeta meta = TableWriter.write(Vfs.real(), file, 6, entries.iterator(), 4096, 10);
    assertThat(meta.fileNumber()).isEqualTo(6);
    assertThat(meta.level()).isZero();
    assertThat(meta.fileSizeBytes()).isEqualTo(Files.size(file));
    assertThat(meta.entryCount()).isEqualTo(3);
    assertThat(meta.minVersion()).isEqualTo(10);
    assertThat(meta.maxVersion()).isEqualTo(30);
    assertThat(meta.smallestKey()).isEqualTo(bytes("a"));
    assertThat(meta.largestKey()).isEqualTo(bytes("z"));
  }

  @Test
  void aBlockClosesOnceItReachesTheTargetSize() throws IOException {
    // Each entry takes 5 one-byte header fields (shared, unshared, value_length, type,
    // version_delta), its 1-byte key and 100-byte value: 106 bytes. A block's trailer is its
    // base_version, one restart offset, the restart count, codec and crc: 21 bytes. The second
    // entry of a block passes 200 bytes, so the table holds blocks of two.
    Path file = dir.resolve("000007.sst");
    List<Entry> entries = new java.util.ArrayList<>();
    for (char c = 'a'; c <= 'e'; c++) entries.add(new Entry(new byte[] {(byte) c}, 1, new byte[100]));
    TableWriter.write(Vfs.real(), file, 7, entries.iterator(), 200, 10);
    try (Table table = Table.open(Vfs.real(), file, 7)) {
      assertThat(table.blockCount()).isEqualTo(3);
      assertThat(table.blockHandle(0).length()).isEqualTo(2 * 106 + 21);
      assertThat(table.blockHandle(2).length()).isEqualTo(106 + 21);
    }
  }

  private static Entry value(String key) {
    return new Entry(bytes(key), 1, bytes("v"));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
