package dev.shale.storage.inspect;

import dev.shale.storage.StorageException;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A shared lock on a data directory's {@code LOCK} file (docs/format.md, "The data directory"),
 * taken without creating or writing the file: while the tools hold it no node can open the store
 * (a node takes the lock exclusively), and they refuse a store a node holds, whose files it is
 * writing. A directory without a {@code LOCK} file (a checkpoint, a copy) was never opened by a
 * node there, and is read without one: the tools never create it.
 */
final class ReadLock implements AutoCloseable {
  private final @Nullable Closeable lock; // null: the directory has no LOCK file

  private ReadLock(@Nullable Closeable lock) {
    this.lock = lock;
  }

  /** @throws StorageException naming the directory if a node (or this process) holds its lock */
  static ReadLock acquire(Vfs vfs, Path directory) throws IOException {
    Path file = directory.resolve(FileNames.LOCK);
    if (!vfs.exists(file)) return new ReadLock(null);
    try {
      Closeable lock = vfs.tryLockShared(file);
      if (lock == null) throw inUse(directory, "another process (a node?)");
      return new ReadLock(lock);
    } catch (OverlappingFileLockException e) {
      throw inUse(directory, "this process");
    }
  }

  /** Whether the directory had a LOCK file to take. */
  boolean held() {
    return lock != null;
  }

  @Override
  public void close() throws IOException {
    if (lock != null) lock.close();
  }

  private static StorageException inUse(Path directory, String holder) {
    return new StorageException(directory + " is in use: " + holder + " holds its LOCK file. The tools read a"
        + " stopped node's store only: stop the node first (or take a snapshot and read that)");
  }
}
