package dev.shale.storage.io;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Reads the framed records of a log or manifest file from the start, up to its first bad record
 * (docs/format.md, "Write-ahead log"): the first record that runs past the end of the file or
 * fails its crc ends the records, and so does a record whose payload the caller finds
 * inconsistent ({@link #stopAt}). Past a bad record the reader resynchronises to count the valid
 * records after it, so that the caller can tell a torn tail from damage in the middle. The file
 * is memory-mapped; frames are slices of the mapping.
 *
 * <p>Thread safety: none; one thread reads, then closes. Frames are valid until {@link #close}.
 */
public final class RecordReader implements AutoCloseable {
  /** One record whose crc holds: where it starts in the file, and its payload. */
  public record Frame(long offset, MemorySegment payload) {}

  /**
   * The bytes from the first bad record on: where they start, how many, why they end the records,
   * and the valid records found after them by resynchronising. Only with none after it is this a
   * torn tail proper (docs/format.md, "Write-ahead log").
   *
   * @param nextValidOffset where the first valid record after the bad one starts, or -1
   * @param validRecordsAfter how many valid records follow in a row from there
   * @param cutShort true if the bytes dropped are one record cut short by the end of the file (or
   *     a file header so cut, or a file of just a header that never reached the disk): what a
   *     crash during an append leaves, a write that never completed and so was never
   *     acknowledged. False for anything else (a whole record failing its crc or its shape, zeros,
   *     a length no writer produces), which damage leaves, or a power loss on a file system that
   *     kept the file's new size but not its bytes (docs/format.md, "Write-ahead log")
   */
  public record TornTail(long offset, long droppedBytes, String reason, long nextValidOffset,
      long validRecordsAfter, boolean cutShort) {
    public boolean followedByValidRecords() {
      return validRecordsAfter > 0;
    }
  }

  private final Path path;
  private final Arena arena;
  private final MemorySegment file;
  private final RecordShape shape;
  private long position;
  private boolean done;
  private boolean headerMissing;
  private int formatVersion; // from the header; 0 when it is missing
  private @Nullable TornTail tail; // null: no bad record (yet)
  private long resyncCheckedBytes;

  private RecordReader(Path path, Arena arena, MemorySegment file, RecordShape shape) {
    this.path = path;
    this.arena = arena;
    this.file = file;
    this.shape = shape;
  }

  /**
   * Opens {@code path}, checking its header against {@code magic} and a format version from
   * {@code oldestVersion} to {@code newestVersion} ({@link #formatVersion} says which); {@code
   * shape} is what a record of this kind of file looks like.
   *
   * @throws CorruptionException if the header names another kind of file or format version
   */
  public static RecordReader open(Vfs vfs, Path path, long magic, int oldestVersion, int newestVersion,
      RecordShape shape) throws IOException {
    Arena arena = Arena.ofConfined();
    try (Vfs.ReadableFile opened = vfs.open(path)) {
      MemorySegment file = opened.map(arena);
      RecordReader reader = new RecordReader(path, arena, file, shape);
      reader.readHeader(magic, oldestVersion, newestVersion);
      return reader;
    } catch (IOException | RuntimeException e) {
      arena.close();
      throw e;
    }
  }

  public Path path() {
    return path;
  }

  /** The format version the file's header names; 0 if the header is missing ({@link #headerMissing}). */
  public int formatVersion() {
    return formatVersion;
  }

  /**
   * The next record, or null at the end of the records (see {@link #tornTail}).
   *
   * @throws CorruptionException if, past a bad record, resynchronising cannot tell a torn tail
   *     from damage within its memory bound (docs/format.md, "Write-ahead log")
   */
  public @Nullable Frame next() {
    if (done) return null;
    long remaining = file.byteSize() - position;
    if (remaining == 0) {
      done = true;
      return null;
    }
    if (remaining < RecordFormat.FRAME_HEADER_BYTES) {
      return stop(position, "incomplete record header", -1, true);
    }
    int storedCrc = file.get(RecordFormat.U32, position);
    long length = Integer.toUnsignedLong(file.get(RecordFormat.U32, position + 4));
    if (length > remaining - RecordFormat.FRAME_HEADER_BYTES) {
      // Cut short only if its header is one a writer produces: a length read from zeros or
      // foreign bytes is damage, wherever the file ends.
      boolean cutShort = shape.plausible(file, position + RecordFormat.FRAME_HEADER_BYTES, length);
      return stop(position, "record of " + length + " bytes runs past the end of the file", -1, cutShort);
    }
    long covered = RecordFormat.FRAME_HEADER_BYTES - RecordFormat.CRC_COVERED_FROM + length;
    if (FrameScan.crc32c(file, position + RecordFormat.CRC_COVERED_FROM, covered) != storedCrc) {
      return stop(position, "crc mismatch", FrameScan.end(file, position), false);
    }
    Frame frame =
        new Frame(position, file.asSlice(position + RecordFormat.FRAME_HEADER_BYTES, length));
    position += RecordFormat.FRAME_HEADER_BYTES + length;
    return frame;
  }

  /**
   * Ends the records at {@code frame}: its crc holds but its payload does not parse, which the
   * format treats like a torn write (docs/format.md, "Write-ahead log").
   */
  public void stopAt(Frame frame, String reason) {
    stop(frame.offset(), reason, FrameScan.end(file, frame.offset()), false);
  }

  /** The bad record found and what follows it, or null if the file ended cleanly after its last record. */
  public @Nullable TornTail tornTail() {
    return tail;
  }

  /**
   * How many bytes resynchronising after the bad record read (the bytes its crcs covered and one
   * for each offset it tried): the work of telling a torn tail from damage, at most 4 times the
   * file's size (docs/format.md, "Write-ahead log"); 0 without a bad record.
   */
  public long resyncCheckedBytes() {
    return resyncCheckedBytes;
  }

  /** True if the file is shorter than its header or its header is all zeros: it holds no records. */
  public boolean headerMissing() {
    return headerMissing;
  }

  @Override
  public void close() {
    arena.close();
  }

  // header := magic:u64 format_version:u32 reserved:u32. A file shorter than its header, or
  // whose header is all zero bytes (created but never written before a crash), holds no records.
  private void readHeader(long magic, int oldestVersion, int newestVersion) {
    long size = file.byteSize();
    if (size < RecordFormat.HEADER_BYTES) {
      headerMissing = true;
      stop(0, "file of " + size + " bytes is shorter than its header", -1, true);
      return;
    }
    long storedMagic = file.get(RecordFormat.U64, 0);
    int formatVersion = file.get(RecordFormat.U32, 8);
    if (storedMagic == 0 && formatVersion == 0 && file.get(RecordFormat.U32, 12) == 0) {
      headerMissing = true;
      // The header is forced before any record is appended (LogWriter.create), so zeros with
      // bytes after them are not a creation cut short.
      stop(0, "header never written", -1, size == RecordFormat.HEADER_BYTES);
      return;
    }
    if (storedMagic != magic) {
      throw new CorruptionException(
          path, String.format("magic 0x%016X at offset 0, expected 0x%016X", storedMagic, magic));
    }
    if (formatVersion < oldestVersion || formatVersion > newestVersion) {
      String expected = oldestVersion == newestVersion
          ? String.valueOf(newestVersion) : oldestVersion + " to " + newestVersion;
      throw new CorruptionException(
          path, "format version " + formatVersion + " at offset 8 is not supported (expected " + expected + ")");
    }
    this.formatVersion = formatVersion;
    position = RecordFormat.HEADER_BYTES;
  }

  // nextByLength: where the bad record's own length says the next one starts, or -1 when that
  // length cannot be trusted. Records start after the header, so a scan never starts before it.
  private @Nullable Frame stop(long offset, String reason, long nextByLength, boolean cutShort) {
    long dropped = file.byteSize() - offset;
    if (dropped > 0) {
      long scanFrom = Math.max(offset + 1, RecordFormat.HEADER_BYTES);
      FrameScan scan = new FrameScan(path, file, shape);
      FrameScan.After after = scan.validFramesAfter(offset, nextByLength, scanFrom);
      resyncCheckedBytes = scan.checkedBytes();
      tail = new TornTail(offset, dropped, reason, after.offset(), after.count(), cutShort);
    }
    done = true;
    return null;
  }
}
