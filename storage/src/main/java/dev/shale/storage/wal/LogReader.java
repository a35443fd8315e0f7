package dev.shale.storage.wal;

import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.RecordReader;
import dev.shale.storage.io.RecordReader.Frame;
import dev.shale.storage.io.RecordReader.TornTail;
import java.io.IOException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Reads one write-ahead log segment's records in order, up to its first bad record
 * (docs/format.md, "Write-ahead log"); whether that is a torn tail is the caller's to judge. Thread safety: none; one thread reads, then closes.
 */
public final class LogReader implements AutoCloseable {
  private final RecordReader records;
  private long lastOffset = -1; // where the record next() returned last starts

  private LogReader(RecordReader records) {
    this.records = records;
  }

  /**
   * Opens the log {@code file} for reading.
   *
   * @throws dev.shale.storage.CorruptionException if the file is not a log of a known version
   */
  public static LogReader open(Vfs vfs, Path file) throws IOException {
    return new LogReader(RecordReader.open(
        vfs, file, LogFormat.MAGIC, LogFormat.FORMAT_VERSION, LogFormat.FORMAT_VERSION, LogRecord::plausible));
  }

  /**
   * The next record, or null after the last one before the torn tail.
   *
   * @throws dev.shale.storage.CorruptionException for a record whose crc holds but whose type is
   *     unknown, or past a bad record when resynchronising cannot tell a torn tail from damage
   */
  public @Nullable Entry next() {
    Frame frame = records.next();
    if (frame == null) return null;
    lastOffset = frame.offset();
    String inconsistency = LogRecord.inconsistency(frame);
    if (inconsistency != null) {
      records.stopAt(frame, inconsistency);
      return null;
    }
    return LogRecord.decode(records.path(), frame);
  }

  /** Where the record {@link #next} returned last starts in the file (its crc), or -1 before the first. */
  public long lastOffset() {
    return lastOffset;
  }

  /**
   * The bad record that ended the records once {@link #next} returned null (with the valid
   * records found after it), or null if the log ended cleanly.
   */
  public @Nullable TornTail tornTail() {
    return records.tornTail();
  }

  /** The bytes resynchronising after the bad record read (see RecordReader#resyncCheckedBytes). */
  long resyncCheckedBytes() {
    return records.resyncCheckedBytes();
  }

  /** True if the file is shorter than its header or its header is zeros: it holds no records. */
  public boolean headerMissing() {
    return records.headerMissing();
  }

  @Override
  public void close() {
    records.close();
  }
}
