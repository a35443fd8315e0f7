package dev.shale.storage.manifest;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.RecordReader;
import dev.shale.storage.io.RecordReader.Frame;
import dev.shale.storage.io.RecordReader.TornTail;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Every record of one manifest file, read with the reader opening uses (docs/format.md,
 * "Manifest"), each decoded and checked on its own: what the offline tools dump and verify. A
 * record that does not decode or breaks the invariants of a snapshot is listed with why, and the
 * reading goes on to the next. Opening reads only the last valid record ({@link ManifestLoader}).
 *
 * @param records the records whose crc holds, in file order
 * @param tail the bad record that ended them and what follows it, or null if the file ended cleanly
 * @param headerMissing the file is shorter than its header, or its header is zeros: it holds no record
 */
public record ManifestRecords(List<RecordAt> records, @Nullable TornTail tail, boolean headerMissing) {
  /**
   * One record: its offset in the file, and its snapshot, or (null) why it has none.
   *
   * @param problem why the record's payload, whose crc holds, is not a snapshot opening would
   *     accept (it does not parse, or breaks "Levels"), or null
   */
  public record RecordAt(long offset, @Nullable ManifestSnapshot snapshot, @Nullable String problem) {}

  public ManifestRecords {
    records = List.copyOf(records);
  }

  /**
   * Reads {@code file}.
   *
   * @throws CorruptionException if its header names another kind of file or format version, or
   *     resynchronising after a bad record cannot tell what follows (as at open)
   */
  public static ManifestRecords read(Vfs vfs, Path file) throws IOException {
    List<RecordAt> records = new ArrayList<>();
    try (RecordReader reader = RecordReader.open(vfs, file, ManifestFormat.MAGIC,
        ManifestFormat.OLDEST_FORMAT_VERSION, ManifestFormat.FORMAT_VERSION, SnapshotRecord::plausible)) {
      for (Frame frame = reader.next(); frame != null; frame = reader.next()) {
        records.add(decode(file, frame, reader.formatVersion()));
      }
      return new ManifestRecords(records, reader.tornTail(), reader.headerMissing());
    }
  }

  private static RecordAt decode(Path file, Frame frame, int formatVersion) {
    try {
      ManifestSnapshot snapshot = SnapshotRecord.decode(file, frame, formatVersion);
      SnapshotInvariants.check(file, frame.offset(), new ManifestLoader.Loaded(0, formatVersion, snapshot));
      return new RecordAt(frame.offset(), snapshot, null);
    } catch (CorruptionException e) {
      return new RecordAt(frame.offset(), null, e.problem());
    }
  }
}
