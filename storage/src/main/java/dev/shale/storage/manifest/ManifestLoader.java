package dev.shale.storage.manifest;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.io.RecordReader;
import dev.shale.storage.io.RecordReader.Frame;
import dev.shale.storage.io.RecordReader.TornTail;
import java.io.IOException;
import java.lang.System.Logger.Level;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Finds the state of a store at open (docs/format.md, "Manifest"): the highest-numbered
 * {@code MANIFEST-<n>} holding at least one valid record, and the last valid record in it.
 */
public final class ManifestLoader {
  /** The chosen manifest, its header's format_version, and the snapshot it holds. */
  public record Loaded(long fileNumber, int formatVersion, ManifestSnapshot snapshot) {
    /** Whether the snapshot lists its log segments: format_version 2 on (docs/format.md, "Manifest"). */
    public boolean listsSegments() {
      return formatVersion >= ManifestFormat.SEGMENTS_LISTED;
    }
  }

  private static final System.Logger LOG = System.getLogger(ManifestLoader.class.getName());

  private ManifestLoader() {}

  /**
   * The newest valid snapshot in {@code directory}, or empty if no manifest holds one.
   *
   * @throws CorruptionException if the chosen manifest's last valid record does not parse or
   *     breaks the invariants of a snapshot (SnapshotInvariants), a bad record in it is followed
   *     by valid ones, or a manifest has another kind of header
   */
  public static Optional<Loaded> load(Vfs vfs, Path directory) throws IOException {
    List<Long> numbers = manifestNumbers(vfs, directory);
    numbers.sort(Comparator.reverseOrder());
    for (long number : numbers) {
      Path file = directory.resolve(FileNames.manifest(number));
      Optional<Loaded> loaded = lastSnapshot(vfs, file, number);
      if (loaded.isPresent()) return loaded;
    }
    return Optional.empty();
  }

  /** The numbers of the {@code MANIFEST-<n>} files in {@code directory}, in no order. */
  public static List<Long> manifestNumbers(Vfs vfs, Path directory) throws IOException {
    List<Long> numbers = new ArrayList<>();
    for (Path file : vfs.list(directory)) {
      FileNames.parse(file.getFileName().toString())
          .filter(p -> p.kind() == FileNames.Kind.MANIFEST)
          .ifPresent(p -> numbers.add(p.number()));
    }
    return numbers;
  }

  // A manifest is never appended to after a failed append (Manifest.commit), so valid records
  // after a bad one are not a torn append: the bad record was a committed snapshot.
  private static CorruptionException damagedInTheMiddle(Path file, TornTail tail) {
    return new CorruptionException(file, "manifest has a bad record (" + tail.reason()
        + ") at offset " + tail.offset() + " followed by " + tail.validRecordsAfter()
        + " valid records from offset " + tail.nextValidOffset() + ": not a torn append. The"
        + " store was not opened and nothing was deleted. Restore the directory from a backup,"
        + " or in a cluster move it aside and let the node be refilled from its replicas.");
  }

  private static Optional<Loaded> lastSnapshot(Vfs vfs, Path file, long number) throws IOException {
    try (RecordReader reader = RecordReader.open(vfs, file, ManifestFormat.MAGIC,
        ManifestFormat.OLDEST_FORMAT_VERSION, ManifestFormat.FORMAT_VERSION, SnapshotRecord::plausible)) {
      Frame last = null;
      for (Frame frame = reader.next(); frame != null; frame = reader.next()) last = frame;
      TornTail tail = reader.tornTail();
      if (tail != null && tail.followedByValidRecords()) throw damagedInTheMiddle(file, tail);
      if (tail != null) {
        LOG.log(Level.WARNING, file + ": ignoring " + tail.droppedBytes() + " bytes from offset "
            + tail.offset() + " (" + tail.reason() + ")");
      }
      if (last == null) {
        LOG.log(Level.WARNING, file + ": no valid record, falling back to an older manifest");
        return Optional.empty();
      }
      Loaded loaded = new Loaded(number, reader.formatVersion(), SnapshotRecord.decode(file, last, reader.formatVersion()));
      SnapshotInvariants.check(file, last.offset(), loaded);
      return Optional.of(loaded);
    }
  }
}
