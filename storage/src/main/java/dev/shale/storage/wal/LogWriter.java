package dev.shale.storage.wal;

import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.RecordFormat;
import dev.shale.storage.io.RecordWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Appends records to one write-ahead log segment (docs/format.md, "Write-ahead log").
 *
 * <p>Thread safety: one thread at a time appends (the engine's write leader); {@link #force} may
 * run concurrently with an append. After a failed append or force the segment's tail is unknown:
 * the caller must not append again.
 */
public final class LogWriter implements AutoCloseable {
  /** A group of records up to this many bytes leaves in one write() call. */
  public static final int GROUP_BYTES = RecordWriter.BUFFER_BYTES;

  private final long number;
  private final RecordWriter records;

  private LogWriter(long number, RecordWriter records) {
    this.number = number;
    this.records = records;
  }

  /**
   * Creates segment {@code file} (numbered {@code number}), writes its header and makes file and
   * directory entry durable before returning: a record acknowledged in it can then never
   * vanish with its file.
   */
  public static LogWriter create(Vfs vfs, Path file, long number) throws IOException {
    RecordWriter records = RecordWriter.create(vfs, file, LogFormat.MAGIC, LogFormat.FORMAT_VERSION);
    try {
      records.force();
      vfs.syncDirectory(Objects.requireNonNull(file.toAbsolutePath().getParent(), "a log file is in a directory"));
      return new LogWriter(number, records);
    } catch (IOException | RuntimeException e) {
      records.close();
      throw e;
    }
  }

  /** The framed size of a record with these key and value lengths, for sizing write groups. */
  public static long recordBytes(int keyLength, int valueLength) {
    return RecordFormat.FRAME_HEADER_BYTES + LogFormat.PAYLOAD_HEADER_BYTES
        + (long) keyLength + valueLength;
  }

  public long number() {
    return number;
  }

  public Path path() {
    return records.path();
  }

  public long sizeBytes() {
    return records.sizeBytes();
  }

  /** Appends {@code entries} in order: one write() call when they fit {@link #GROUP_BYTES}. */
  public void append(List<Entry> entries) throws IOException {
    List<LogRecord> payloads = new ArrayList<>(entries.size());
    for (Entry entry : entries) payloads.add(new LogRecord(entry));
    records.append(payloads);
  }

  /** Cuts the segment back to {@code sizeBytes} after a failed append; see RecordWriter#truncateTo. */
  public void truncateTo(long sizeBytes) throws IOException {
    records.truncateTo(sizeBytes);
  }

  public void force() throws IOException {
    records.force();
  }

  @Override
  public void close() throws IOException {
    records.close();
  }
}
