package dev.shale.storage.core;

import dev.shale.storage.StorageException;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;

/**
 * The OS lock on a data directory's {@code LOCK} file (docs/format.md, "The data directory"): one
 * engine at a time, in this process or another, owns the directory.
 */
final class DirectoryLock implements AutoCloseable {
  private final Path file;
  private final Closeable lock;

  private DirectoryLock(Path file, Closeable lock) {
    this.file = file;
    this.lock = lock;
  }

  /** @throws StorageException naming the directory if another engine holds it */
  static DirectoryLock acquire(Vfs vfs, Path directory) throws IOException {
    Path file = directory.resolve(FileNames.LOCK);
    try {
      Closeable lock = vfs.tryLock(file);
      if (lock == null) throw lockedBy("another process", directory);
      return new DirectoryLock(file, lock);
    } catch (OverlappingFileLockException e) {
      throw lockedBy("another engine in this process", directory);
    }
  }

  @Override
  public void close() throws IOException {
    lock.close();
  }

  @Override
  public String toString() {
    return file.toString();
  }

  private static StorageException lockedBy(String holder, Path directory) {
    return new StorageException(
        directory + " is in use: " + holder
            + " holds its LOCK file (a directory opens once at a time)");
  }
}
