package dev.shale.storage.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.RecordReader.TornTail;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogTest {
  @TempDir Path dir;

  @Test
  void recordsRoundTripInOrder() throws IOException {
    byte[] big = new byte[3 * LogWriter.GROUP_BYTES + 17];
    Arrays.fill(big, (byte) 7);
    List<Entry> entries = List.of(
        entry("a", 1, "one"),
        Entry.tombstone(bytes("b"), 2),
        new Entry(bytes("c"), 3, new byte[0]),
        new Entry(bytes("big"), Long.MAX_VALUE, big),
        entry("d", 0, "after the big one"));
    Path file = dir.resolve("000001.wal");
    try (LogWriter log = LogWriter.create(Vfs.real(), file, 1)) {
      log.append(entries.subList(0, 2));
      log.append(entries.subList(2, 5));
      assertThat(log.sizeBytes()).isEqualTo(Files.size(file));
    }

    assertThat(readAll(file)).containsExactlyElementsOf(entries);
    assertThat(tail(file)).isNull();
  }

  @Test
  void encodesTheExampleOfTheFormatSpec() throws IOException {
    Path file = dir.resolve("000001.wal");
    try (LogWriter log = LogWriter.create(Vfs.real(), file, 1)) {
      log.append(List.of(entry("k1", 0x0000_0193_0000_0001L, "v1")));
    }
    byte[] bytes = Files.readAllBytes(file);
    assertThat(HexFormat.of().formatHex(bytes, 0, 16))
        .isEqualTo("5348414c4557414c" + "01000000" + "00000000");
    // docs/format.md, "Write-ahead log", the example record.
    assertThat(HexFormat.of().formatHex(bytes, 16, bytes.length))
        .isEqualTo("c4dc2db2" + "15000000" + "01" + "0100000093010000" + "02000000" + "02000000"
            + "6b31" + "7631");
    CRC32C crc = new CRC32C();
    crc.update(bytes, 20, bytes.length - 20);
    assertThat(ByteBuffer.wrap(bytes, 16, 4).order(ByteOrder.LITTLE_ENDIAN).getInt())
        .isEqualTo((int) crc.getValue());
  }

  @Test
  void encodesTheExpiringValueExampleOfTheFormatSpecAndReadsItBack() throws IOException {
    Path file = dir.resolve("000001.wal");
    Entry expiring = new Entry(bytes("k1"), 0x0000_0193_0000_0001L, bytes("v1"), 0x0193_EA60L);
    try (LogWriter log = LogWriter.create(Vfs.real(), file, 1)) {
      log.append(List.of(expiring));
    }
    byte[] bytes = Files.readAllBytes(file);
    // docs/format.md, "Write-ahead log", the example of an expiring value.
    assertThat(HexFormat.of().formatHex(bytes, 16, bytes.length))
        .isEqualTo("30592279" + "1d000000" + "03" + "0100000093010000" + "02000000" + "0a000000"
            + "6b31" + "60ea930100000000" + "7631");
    assertThat(readAll(file)).containsExactly(expiring);
  }

  @Test
  void aTornTailAtEveryOffsetOfTheLastRecordDropsOnlyThatRecord() throws IOException {
    Path file = dir.resolve("000001.wal");
    List<Entry> entries = threeEntries();
    long lastStart = writeLog(file, entries);
    byte[] whole = Files.readAllBytes(file);

    for (int cut = (int) lastStart; cut < whole.length; cut++) {
      Path torn = dir.resolve("torn-" + cut + ".wal");
      Files.write(torn, Arrays.copyOf(whole, cut));
      assertThat(readAll(torn))
          .as("cut at %d", cut)
          .containsExactlyElementsOf(entries.subList(0, 2));
      TornTail tail = tail(torn);
      if (cut == lastStart) {
        assertThat(tail).as("cut at %d", cut).isNull();
      } else {
        assertThat(tail.offset()).as("cut at %d", cut).isEqualTo(lastStart);
        assertThat(tail.droppedBytes()).as("cut at %d", cut).isEqualTo(cut - lastStart);
        assertThat(tail.cutShort()).as("cut at %d: what a crash leaves", cut).isTrue();
      }
    }
  }

  @Test
  void aFlippedByteInTheLastRecordDropsThatRecord() throws IOException {
    Path file = dir.resolve("000001.wal");
    List<Entry> entries = threeEntries();
    long lastStart = writeLog(file, entries);
    byte[] whole = Files.readAllBytes(file);

    for (int at = (int) lastStart; at < whole.length; at++) {
      byte[] flipped = whole.clone();
      flipped[at] ^= 0x10;
      Path corrupt = dir.resolve("flipped-" + at + ".wal");
      Files.write(corrupt, flipped);
      assertThat(readAll(corrupt))
          .as("flip at %d", at)
          .containsExactlyElementsOf(entries.subList(0, 2));
      TornTail tail = tail(corrupt);
      assertThat(tail.offset()).as("flip at %d", at).isEqualTo(lastStart);
      assertThat(tail.cutShort()).as("flip at %d: not what a crash leaves", at).isFalse();
    }
  }

  @Test
  void aFileShorterThanItsHeaderHoldsNoRecords() throws IOException {
    Path file = dir.resolve("000001.wal");
    writeLog(file, List.of(entry("a", 1, "one")));
    byte[] whole = Files.readAllBytes(file);
    for (int size = 0; size < 16; size++) {
      Path shortFile = dir.resolve("short-" + size + ".wal");
      Files.write(shortFile, Arrays.copyOf(whole, size));
      assertThat(readAll(shortFile)).as("size %d", size).isEmpty();
      if (size > 0) assertThat(tail(shortFile).cutShort()).as("size %d: a creation cut short", size).isTrue();
    }
  }

  @Test
  void aHeaderOfZerosHoldsNoRecords() throws IOException {
    Path file = dir.resolve("000001.wal");
    Files.write(file, new byte[64]);
    assertThat(readAll(file)).isEmpty();
    assertThat(tail(file).droppedBytes()).isEqualTo(64);
    assertThat(tail(file).cutShort()).as("zeros after the header: the header is forced first").isFalse();

    Files.write(file, new byte[16]);
    assertThat(readAll(file)).isEmpty();
    assertThat(tail(file).cutShort()).as("a header that never reached the disk").isTrue();
  }

  // Issue 31, item 8: what a crash leaves ends the file inside a record; zeros there do not.
  @Test
  void aZeroedTailIsNotARecordCutShortWhereverItStarts() throws IOException {
    Path file = dir.resolve("000001.wal");
    List<Entry> entries = threeEntries();
    writeLog(file, entries);
    byte[] whole = Files.readAllBytes(file);
    for (int from = 16; from < whole.length; from++) {
      byte[] zeroed = whole.clone();
      Arrays.fill(zeroed, from, zeroed.length, (byte) 0);
      Path corrupt = dir.resolve("zeroed-" + from + ".wal");
      Files.write(corrupt, zeroed);
      assertThat(tail(corrupt).cutShort()).as("zeroed from %d", from).isFalse();
    }
  }

  @Test
  void aFileOfAnotherKindIsCorrupt() throws IOException {
    Path file = dir.resolve("000001.wal");
    Files.writeString(file, "this is not a log at all, just some text");
    assertThatThrownBy(() -> LogReader.open(Vfs.real(), file))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("000001.wal")
        .hasMessageContaining("magic");
  }

  @Test
  void aRecordWithAValidCrcButAnUnknownTypeIsCorrupt() throws IOException {
    Path file = dir.resolve("000001.wal");
    long lastStart = writeLog(file, List.of(entry("a", 1, "one"), entry("b", 2, "two")));
    byte[] bytes = Files.readAllBytes(file);
    int at = (int) lastStart;
    bytes[at + 8] = 9; // the type
    CRC32C crc = new CRC32C();
    crc.update(bytes, at + 4, bytes.length - at - 4);
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(at, (int) crc.getValue());
    Files.write(file, bytes);

    try (LogReader reader = LogReader.open(Vfs.real(), file)) {
      assertThat(reader.next()).isEqualTo(entry("a", 1, "one"));
      assertThatThrownBy(reader::next)
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("unknown record type 9")
          .hasMessageContaining("offset " + lastStart);
    }
  }

  @Test
  void aLengthThatDisagreesWithKeyAndValueLengthsIsATornTail() throws IOException {
    Path file = dir.resolve("000001.wal");
    long lastStart = writeLog(file, List.of(entry("a", 1, "one"), entry("b", 2, "two")));
    byte[] bytes = Files.readAllBytes(file);
    int at = (int) lastStart;
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(at + 8 + 9, 2); // key_length
    CRC32C crc = new CRC32C();
    crc.update(bytes, at + 4, bytes.length - at - 4);
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(at, (int) crc.getValue());
    Files.write(file, bytes);

    assertThat(readAll(file)).containsExactly(entry("a", 1, "one"));
    assertThat(tail(file).reason()).contains("disagrees");
  }

  /** Writes {@code entries}, one append each; returns the offset of the last record. */
  private static long writeLog(Path file, List<Entry> entries) throws IOException {
    long lastStart = 0;
    try (LogWriter log = LogWriter.create(Vfs.real(), file, 1)) {
      for (Entry entry : entries) {
        lastStart = log.sizeBytes();
        log.append(List.of(entry));
      }
    }
    return lastStart;
  }

  private static List<Entry> threeEntries() {
    return List.of(entry("a", 1, "one"), entry("b", 2, "two"), entry("c", 3, "three"));
  }

  private static List<Entry> readAll(Path file) throws IOException {
    List<Entry> entries = new ArrayList<>();
    try (LogReader reader = LogReader.open(Vfs.real(), file)) {
      for (Entry e = reader.next(); e != null; e = reader.next()) entries.add(e);
    }
    return entries;
  }

  private static TornTail tail(Path file) throws IOException {
    try (LogReader reader = LogReader.open(Vfs.real(), file)) {
      while (reader.next() != null) {}
      return reader.tornTail();
    }
  }

  private static Entry entry(String key, long version, String value) {
    return new Entry(bytes(key), version, bytes(value));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
