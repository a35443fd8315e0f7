package dev.shale.storage.core;

import dev.shale.storage.StorageException;
import dev.shale.storage.io.FileNames;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The OS lock on a data directory's {@code LOCK} file (docs/format.md, "The data directory"): one
 * engine at a time, in this process or another, owns the directory.
 */
final class DirectoryLock implements AutoCloseable {
  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;

  private DirectoryLock(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  /** @throws StorageException naming the directory if another engine holds it */
  static DirectoryLock acquire(Path directory) throws IOException {
    Path file = directory.resolve(FileNames.LOCK);
    FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      FileLock lock = channel.tryLock();
      if (lock == null) throw lockedBy("another process", directory);
      return new DirectoryLock(file, channel, lock);
    } catch (OverlappingFileLockException e) {
      channel.close();
      throw lockedBy("another engine in this process", directory);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close();
    }
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
