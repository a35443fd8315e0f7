package dev.shale.storage.manifest;

import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.io.RecordWriter;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The manifest a store appends its file-set changes to (docs/format.md, "Manifest"): each
 * {@link #commit} appends one complete snapshot and fsyncs it; the change takes effect when
 * commit returns. {@link ManifestLoader} reads it back at open.
 *
 * <p>Thread safety: methods are synchronized; commits are serialized.
 */
public final class Manifest implements AutoCloseable {
  /*
   * A failed append or fsync leaves the file's tail unknown: bytes after it could hide every
   * later record (a reader stops at the first bad one), and after a failed fsync the kernel may
   * have dropped pages it had accepted. So the manifest never appends to such a file again: the
   * next commit writes a new MANIFEST-<n> holding the whole snapshot, which wins by its higher
   * number. The same replacement keeps the file small once it passes ROTATE_BYTES.
   */

  /** Past this size the next commit starts a new manifest file. */
  public static final long ROTATE_BYTES = 4L << 20;

  private static final System.Logger LOG = System.getLogger(Manifest.class.getName());

  private final Path directory;
  private final Vfs vfs;
  // Guarded by this. Null before the first commit of an unwritten() manifest, and once closed.
  private @Nullable RecordWriter writer;
  private long fileNumber; // guarded by this; 0 until a file is written
  private boolean tailUnknown; // guarded by this
  private boolean closed; // guarded by this

  private Manifest(Vfs vfs, Path directory, @Nullable RecordWriter writer, long fileNumber) {
    this.vfs = vfs;
    this.directory = directory;
    this.writer = writer;
    this.fileNumber = fileNumber;
  }

  /**
   * A manifest with no file yet: its first {@link #commit} writes a new {@code MANIFEST-<n>}, as a
   * replacement does, and only then deletes the older ones. Until then the store's manifests are
   * left as they are, so the newest of them stays the store's state (an open that cannot write
   * its new manifest, on a full disk, changes nothing). The one way a manifest file comes to be:
   * opening and a checkpoint write theirs through it too.
   */
  public static Manifest unwritten(Vfs vfs, Path directory) {
    return new Manifest(vfs, directory, null, 0);
  }

  /**
   * Makes {@code snapshot} the durable state of the store: appended and fsynced, or written to a
   * new manifest file (numbered by {@code newFileNumber}) when this one is large or its tail is
   * unknown after a failure.
   */
  public synchronized void commit(ManifestSnapshot snapshot, LongSupplier newFileNumber)
      throws IOException {
    if (closed) throw new IllegalStateException("manifest is closed");
    if (writer == null || tailUnknown || writer.sizeBytes() >= ROTATE_BYTES) {
      replace(snapshot, newFileNumber.getAsLong());
      return;
    }
    requireNumberedAbove(snapshot, fileNumber);
    try {
      writer.append(new SnapshotRecord(snapshot));
      writer.force();
    } catch (IOException | RuntimeException e) {
      tailUnknown = true;
      throw e;
    }
  }

  public synchronized long fileNumber() {
    return fileNumber;
  }

  public synchronized long sizeBytes() {
    return writer == null ? 0 : writer.sizeBytes();
  }

  @Override
  public synchronized void close() throws IOException {
    closed = true;
    if (writer == null) return;
    try {
      writer.close();
    } finally {
      writer = null;
    }
  }

  // Invariant (docs/format.md, "Manifest"): next_file_number is above every file in use, the
  // manifest itself included.
  private static void requireNumberedAbove(ManifestSnapshot snapshot, long manifestNumber) {
    if (snapshot.nextFileNumber() <= manifestNumber) {
      throw new IllegalArgumentException("next_file_number " + snapshot.nextFileNumber()
          + " is not above the manifest's own number " + manifestNumber);
    }
  }

  private void replace(ManifestSnapshot snapshot, long newNumber) throws IOException {
    ManifestSnapshot numbered =
        snapshot.withNextFileNumber(Math.max(snapshot.nextFileNumber(), newNumber + 1));
    RecordWriter replacement = writeNewFile(vfs, directory, newNumber, numbered);
    RecordWriter old = writer; // null for the first file of an unwritten() manifest
    long oldNumber = fileNumber;
    writer = replacement;
    fileNumber = newNumber;
    tailUnknown = false;
    if (old != null) {
      try {
        old.close();
      } catch (IOException e) {
        LOG.log(Level.WARNING, "closing " + FileNames.manifest(oldNumber) + " failed: " + e);
      }
    }
    deleteOlderManifests(vfs, directory, newNumber);
    if (old != null) {
      LOG.log(Level.INFO, "manifest " + FileNames.manifest(oldNumber) + " replaced by "
          + FileNames.manifest(newNumber));
    }
  }

  // docs/format.md, "Manifest": header := magic format_version reserved; then one record.
  private static RecordWriter writeNewFile(
      Vfs vfs, Path directory, long fileNumber, ManifestSnapshot snapshot) throws IOException {
    Path file = directory.resolve(FileNames.manifest(fileNumber));
    RecordWriter writer = null;
    try {
      writer = RecordWriter.create(vfs, file, ManifestFormat.MAGIC, ManifestFormat.FORMAT_VERSION);
      writer.append(new SnapshotRecord(snapshot));
      writer.force();
      vfs.syncDirectory(directory);
      return writer;
    } catch (IOException | RuntimeException e) {
      if (writer != null) writer.close();
      // Never read: a lower-numbered manifest still holds the state. Removed now to save a scan,
      // and so that an open retrying on a full disk, whose header did not fit, leaves no file.
      vfs.delete(file);
      throw e;
    }
  }

  // Safe once a newer manifest is durable: the newest valid one wins at open anyway.
  private static void deleteOlderManifests(Vfs vfs, Path directory, long keepNumber) {
    try {
      for (long older : ManifestLoader.manifestNumbers(vfs, directory)) {
        if (older < keepNumber) vfs.delete(directory.resolve(FileNames.manifest(older)));
      }
    } catch (IOException e) {
      LOG.log(Level.WARNING, "deleting manifests older than " + FileNames.manifest(keepNumber)
          + " in " + directory + " failed: " + e);
    }
  }
}
