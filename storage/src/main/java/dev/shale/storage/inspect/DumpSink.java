package dev.shale.storage.inspect;

import dev.shale.storage.Entry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Where {@link FileDump} sends what it reads from a file, in file order; the command line prints
 * it as text or JSON. Each kind of file calls its own methods: a table {@link #table}, then
 * {@link #indexEntry} per data block, then {@link #record} per record; a log segment
 * {@link #segment}, then {@link #record} per record; a manifest {@link #manifest}, then
 * {@link #manifestRecord} per record. Damage and notes (a torn tail) come as {@link #finding}s where they are met.
 */
public interface DumpSink {
  /**
   * A table's footer (docs/format.md, "Footer") and what opening read with it.
   *
   * @param fileNumber the footer's file_number, or 0 in a table of format_version 1 to 3
   * @param filterDamage why the filter failed its checks, or null
   */
  record TableHeader(Path file, long sizeBytes, int formatVersion, long fileNumber, long entryCount, long minVersion,
      long maxVersion, int dataBlocks, long indexOffset, long indexLength, long filterOffset, long filterLength,
      @Nullable String filterDamage, long footerOffset) {}

  /** A log segment: its size, and whether its header is missing (then it holds no record). */
  record SegmentHeader(Path file, long sizeBytes, boolean headerMissing) {}

  /**
   * A manifest snapshot (docs/format.md, "Manifest"); {@code segments}: the log segments it lists
   * as holding writes in no table (format_version 2 and 3; empty in format_version 1);
   * {@code sealedSizes}: the sizes of those writes left, by segment (format_version 3).
   */
  record Snapshot(long nextFileNumber, long logNumber, long lastVersion, List<Long> segments, Map<Long, Long> sealedSizes,
      List<SnapshotTable> tables) {
    public Snapshot {
      segments = List.copyOf(segments);
      sealedSizes = Map.copyOf(sealedSizes);
      tables = List.copyOf(tables);
    }
  }

  /** A table as a manifest snapshot records it. */
  record SnapshotTable(long fileNumber, int level, long fileSizeBytes, long entryCount, long minVersion,
      long maxVersion, byte[] smallestKey, byte[] largestKey) {}

  void table(TableHeader header);

  /** Data block {@code block} as the index places it; {@code firstKey} empty in format_version 1 to 3. */
  void indexEntry(int block, long offset, long length, byte[] firstKey, byte[] lastKey);

  void segment(SegmentHeader header);

  /** A manifest file of {@code sizeBytes} bytes; its records follow. */
  void manifest(Path file, long sizeBytes);

  /**
   * A record: of a table's data block at {@code offset} (block {@code block}), or of a log segment,
   * starting at {@code offset} ({@code block} -1).
   */
  void record(long offset, int block, Entry record);

  /** A manifest record at {@code offset}: its snapshot, or why it has none ({@code snapshot} null). */
  void manifestRecord(long offset, @Nullable Snapshot snapshot,
      @Nullable String problem);

  void finding(Finding finding);
}
