package dev.shale.storage.manifest;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.io.ByteSink;
import dev.shale.storage.io.Payload;
import dev.shale.storage.io.RecordReader.Frame;
import dev.shale.storage.io.SegmentBytes;
import dev.shale.storage.table.TableMeta;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The payload of a manifest record (docs/format.md, "Manifest"):
 * <pre>
 * payload := next_file_number:u64 log_number:u64 last_version:u64
 *            table_count:u32 table[table_count]
 *            segment_count:u32 segment[segment_count]              -- format_version 3
 *            segment_count:u32 segment_number:u64[segment_count]   -- format_version 2
 * segment := segment_number:u64 sealed_size:u64                    -- format_version 3
 * table   := file_number:u64 level:u32 file_size:u64 entry_count:u64
 *            min_version:u64 max_version:u64
 *            smallest_length:u32 smallest[smallest_length]
 *            largest_length:u32 largest[largest_length]
 * </pre>
 * Written in format_version 3 ({@link ManifestFormat#FORMAT_VERSION}); read in 1, 2 and 3.
 */
final class SnapshotRecord implements Payload {
  /** Do not change: embedded in on-disk data. */
  static final int HEADER_BYTES = 8 + 8 + 8 + 4;
  /** A table's fixed fields and its two key lengths. Do not change: embedded in on-disk data. */
  static final int TABLE_FIXED_BYTES = 8 + 4 + 8 + 8 + 8 + 8 + 4 + 4;
  /**
   * segment_count:u32, then per segment its number:u64 and (format_version 3) its sealed_size:u64.
   * Do not change: embedded in on-disk data.
   */
  static final int SEGMENT_COUNT_BYTES = 4;
  static final int SEGMENT_NUMBER_BYTES = 8;
  static final int SEGMENT_BYTES = SEGMENT_NUMBER_BYTES + 8;
  /** The sealed_size of the segment writes go to. Do not change: embedded in on-disk data. */
  static final long NOT_SEALED = 0;

  private static final ValueLayout.OfInt U32 =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong U64 =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final ManifestSnapshot snapshot;

  /**
   * Whether a payload of {@code length} bytes at {@code payloadOffset} of {@code file} has the
   * shape of a snapshot (a {@link dev.shale.storage.io.RecordShape}): room for its header and
   * for the fixed fields of {@code table_count} tables; judged by length alone when the header
   * does not lie in the file.
   */
  static boolean plausible(MemorySegment file, long payloadOffset, long length) {
    if (length < HEADER_BYTES) return false;
    if (file.byteSize() - payloadOffset < HEADER_BYTES) return true;
    long tableCount = Integer.toUnsignedLong(file.get(U32, payloadOffset + HEADER_BYTES - 4));
    return HEADER_BYTES + tableCount * TABLE_FIXED_BYTES <= length;
  }

  SnapshotRecord(ManifestSnapshot snapshot) {
    this.snapshot = snapshot;
  }

  @Override
  public int lengthBytes() {
    long length = HEADER_BYTES;
    for (TableMeta t : snapshot.tables()) {
      length += TABLE_FIXED_BYTES + t.smallestKey().length + t.largestKey().length;
    }
    length += SEGMENT_COUNT_BYTES + (long) SEGMENT_BYTES * snapshot.segments().size();
    return Math.toIntExact(length);
  }

  @Override
  public void writeTo(ByteSink sink) {
    sink.putLong(snapshot.nextFileNumber());
    sink.putLong(snapshot.logNumber());
    sink.putLong(snapshot.lastVersion());
    sink.putInt(snapshot.tables().size());
    for (TableMeta t : snapshot.tables()) {
      sink.putLong(t.fileNumber());
      sink.putInt(t.level());
      sink.putLong(t.fileSizeBytes());
      sink.putLong(t.entryCount());
      sink.putLong(t.minVersion());
      sink.putLong(t.maxVersion());
      sink.putInt(t.smallestKey().length);
      sink.put(t.smallestKey());
      sink.putInt(t.largestKey().length);
      sink.put(t.largestKey());
    }
    sink.putInt(snapshot.segments().size());
    for (long segment : snapshot.segments()) {
      sink.putLong(segment);
      sink.putLong(snapshot.sealedSizes().getOrDefault(segment, NOT_SEALED));
    }
  }

  /**
   * The snapshot in {@code frame}, of a manifest of {@code formatVersion}. Its crc held, so a
   * payload that does not parse is not a torn write but corruption.
   */
  static ManifestSnapshot decode(Path file, Frame frame, int formatVersion) {
    Cursor in = new Cursor(file, frame);
    long nextFileNumber = in.u64();
    long logNumber = in.u64();
    long lastVersion = in.u64();
    long tableCount = Integer.toUnsignedLong(in.u32());
    in.require(tableCount * TABLE_FIXED_BYTES, "table_count " + tableCount);
    List<TableMeta> tables = new ArrayList<>((int) tableCount);
    for (long i = 0; i < tableCount; i++) {
      long fileNumber = in.u64();
      int level = in.u32();
      long fileSize = in.u64();
      long entryCount = in.u64();
      long minVersion = in.u64();
      long maxVersion = in.u64();
      byte[] smallest = in.bytes(in.u32());
      byte[] largest = in.bytes(in.u32());
      tables.add(new TableMeta(
          fileNumber, level, fileSize, entryCount, minVersion, maxVersion, smallest, largest));
    }
    List<Long> segments = new ArrayList<>();
    Map<Long, Long> sealedSizes = new HashMap<>();
    if (formatVersion >= ManifestFormat.SEGMENTS_LISTED) {
      boolean sized = formatVersion >= ManifestFormat.SEALED_SIZES;
      long segmentCount = Integer.toUnsignedLong(in.u32());
      in.require(segmentCount * (sized ? SEGMENT_BYTES : SEGMENT_NUMBER_BYTES), "segment_count " + segmentCount);
      for (long i = 0; i < segmentCount; i++) {
        long segment = in.u64();
        segments.add(segment);
        long sealedSize = sized ? in.u64() : NOT_SEALED;
        if (sealedSize != NOT_SEALED) sealedSizes.put(segment, sealedSize);
      }
    }
    in.requireEnd();
    return new ManifestSnapshot(nextFileNumber, logNumber, lastVersion, tables, segments, sealedSizes);
  }

  /** Reads a payload front to back, failing with the record's offset on any overrun. */
  private static final class Cursor {
    private final Path file;
    private final Frame frame;
    private final MemorySegment bytes;
    private long position;

    Cursor(Path file, Frame frame) {
      this.file = file;
      this.frame = frame;
      this.bytes = frame.payload();
    }

    long u64() {
      require(8, "a u64");
      long value = bytes.get(U64, position);
      position += 8;
      return value;
    }

    int u32() {
      require(4, "a u32");
      int value = bytes.get(U32, position);
      position += 4;
      return value;
    }

    byte[] bytes(int length) {
      long unsigned = Integer.toUnsignedLong(length);
      require(unsigned, "a key of " + unsigned + " bytes");
      byte[] value = SegmentBytes.copyOf(bytes, position, unsigned);
      position += length;
      return value;
    }

    void require(long length, String what) {
      if (length > bytes.byteSize() - position) {
        throw corrupt(what + " at payload offset " + position + " runs past the record's end");
      }
    }

    void requireEnd() {
      if (position != bytes.byteSize()) {
        throw corrupt((bytes.byteSize() - position) + " bytes left after the last table");
      }
    }

    private CorruptionException corrupt(String detail) {
      return new CorruptionException(
          file, "manifest record at offset " + frame.offset() + " does not parse: " + detail);
    }
  }
}
