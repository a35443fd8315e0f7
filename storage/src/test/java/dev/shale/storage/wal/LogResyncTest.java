package dev.shale.storage.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.RecordReader.TornTail;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resynchronising after a bad record (docs/format.md, "Write-ahead log") reads a number of bytes
 * linear in the log's size whatever the bytes after the bad record hold, and still finds the valid
 * records that follow damage. The work is counted (bytes read to decide), never timed.
 */
class LogResyncTest {
  /**
   * The bound docs/format.md states: resynchronising reads each byte of the log at most this many
   * times (one sequential crc pass, the frame the bad record's length points to, the run of valid
   * frames counted, and a few header bytes at each offset tried).
   */
  private static final long WORK_PER_BYTE = 4;
  private static final int MIB = 1 << 20;
  private static final byte[] ISSUE_PATTERN = {0x00, 0x00, (byte) 0x80, 0x00};

  @TempDir Path dir;

  // Issue 31, item 1: a 15 MiB value of the bytes 00 00 80 00 repeated, its write cut at 12 MiB.
  @Test
  void aTornValueOfARepeatingPatternIsATornTailFoundInLinearWork() throws IOException {
    tornBigValueIsATornTail(pattern(15 * MIB), 12 * MIB);
  }

  @Test
  void aTornValueOfRandomBytesIsATornTailFoundInLinearWork() throws IOException {
    long seed = TestSeed.forTest("LogResyncTest.randomValue");
    byte[] value = new byte[15 * MIB];
    new Random(seed).nextBytes(value);
    tornBigValueIsATornTail(value, 12 * MIB);
  }

  // Small enough that the quadratic scan of issue 31 finished (reading some 8 GiB), large enough
  // that its work shows.
  @Test
  void aTornOneMebibyteValueOfThePatternIsFoundInLinearWork() throws IOException {
    tornBigValueIsATornTail(pattern(MIB), 3 * MIB / 4);
  }

  // The safety resynchronising exists for: a damaged length makes the reader lose the frames, the
  // scan crosses a value of the issue's pattern, and still finds the valid records after it.
  @Test
  void damageBeforeAPatternValueFollowedByValidRecordsIsStillFoundInLinearWork() throws IOException {
    Path file = dir.resolve("000001.wal");
    List<Entry> entries = new ArrayList<>(smallEntries(10));
    entries.add(new Entry(bytes("big"), 100, pattern(2 * MIB)));
    for (int i = 0; i < 3; i++) entries.add(new Entry(bytes("after-" + i), 200 + i, bytes("value-" + i)));
    List<Long> offsets = write(file, entries);
    long big = offsets.get(10);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(big + 7);
      raf.write(0x7F); // the length's high byte: the frame now runs past the end of the file
    }

    try (LogReader reader = LogReader.open(Vfs.real(), file)) {
      List<Entry> read = readAll(reader);
      assertThat(read).containsExactlyElementsOf(entries.subList(0, 10));
      TornTail tail = reader.tornTail();
      assertThat(tail.offset()).isEqualTo(big);
      assertThat(tail.followedByValidRecords()).as("damage in the middle is not a torn tail").isTrue();
      assertThat(tail.nextValidOffset()).isEqualTo(offsets.get(11));
      assertThat(tail.validRecordsAfter()).isEqualTo(3);
      assertLinear(reader, file);
    }
  }

  private void tornBigValueIsATornTail(byte[] value, int keptValueBytes) throws IOException {
    Path file = dir.resolve("000001.wal");
    List<Entry> entries = new ArrayList<>(smallEntries(20));
    entries.add(new Entry(bytes("big"), 1_000, value));
    List<Long> offsets = write(file, entries);
    long big = offsets.getLast();
    long cut = big + 8 + 17 + 3 + keptValueBytes;
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(cut);
    }

    try (LogReader reader = LogReader.open(Vfs.real(), file)) {
      assertThat(readAll(reader)).containsExactlyElementsOf(entries.subList(0, 20));
      TornTail tail = reader.tornTail();
      assertThat(tail.offset()).isEqualTo(big);
      assertThat(tail.droppedBytes()).isEqualTo(cut - big);
      assertThat(tail.followedByValidRecords()).isFalse();
      assertThat(tail.cutShort()).as("one record cut short: a torn append, not damage").isTrue();
      assertLinear(reader, file);
    }
  }

  private static void assertLinear(LogReader reader, Path file) throws IOException {
    long size = Files.size(file);
    assertThat(reader.resyncCheckedBytes())
        .as("bytes resynchronising read, for a log of %d bytes", size)
        .isPositive()
        .isLessThanOrEqualTo(WORK_PER_BYTE * size);
  }

  /** Writes {@code entries}, one append each; returns each record's offset. */
  private static List<Long> write(Path file, List<Entry> entries) throws IOException {
    List<Long> offsets = new ArrayList<>();
    try (LogWriter log = LogWriter.create(Vfs.real(), file, 1)) {
      for (Entry entry : entries) {
        offsets.add(log.sizeBytes());
        log.append(List.of(entry));
      }
    }
    return offsets;
  }

  private static List<Entry> readAll(LogReader reader) {
    List<Entry> read = new ArrayList<>();
    for (Entry e = reader.next(); e != null; e = reader.next()) read.add(e);
    return read;
  }

  private static List<Entry> smallEntries(int count) {
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < count; i++) entries.add(new Entry(bytes("key-" + i), i + 1, bytes("value-" + i)));
    return entries;
  }

  private static byte[] pattern(int length) {
    byte[] value = new byte[length];
    for (int i = 0; i < length; i++) value[i] = ISSUE_PATTERN[i % ISSUE_PATTERN.length];
    return value;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
