package dev.shale.storage;

import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@link Vfs#real()} and {@link Vfs#realDirect()}: the operating system's filesystem, through
 * file channels, and for reading through the C library's {@code pread} ({@link PosixReadableFile}).
 */
@SuppressForbidden(reason = "the real filesystem: the one place that calls the JDK's file APIs")
final class RealVfs implements Vfs {
  static final RealVfs INSTANCE = new RealVfs(false);
  static final RealVfs DIRECT_POINT_READS = new RealVfs(true);

  private final boolean directPointReads;

  private RealVfs(boolean directPointReads) {
    this.directPointReads = directPointReads;
  }

  @Override
  public WritableFile create(Path file) throws IOException {
    FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    return new WritableFile() {
      @Override
      public int append(ByteBuffer source) throws IOException {
        return channel.write(source);
      }

      @Override
      public void sync(boolean metadata) throws IOException {
        channel.force(metadata);
      }

      @Override
      public void truncate(long sizeBytes) throws IOException {
        channel.truncate(sizeBytes); // moves the position back to sizeBytes too
      }

      @Override
      public void close() throws IOException {
        channel.close();
      }
    };
  }

  @Override
  public ReadableFile open(Path file) throws IOException {
    return PosixReadableFile.open(file, directPointReads);
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  @Override
  public void link(Path existing, Path link) throws IOException {
    Files.createLink(link, existing);
  }

  @Override
  public boolean delete(Path file) throws IOException {
    return Files.deleteIfExists(file);
  }

  @Override
  public List<Path> list(Path directory) throws IOException {
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
      stream.forEach(entries::add);
    }
    return entries;
  }

  @Override
  public @Nullable Closeable tryLock(Path file) throws IOException {
    FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      FileLock lock = channel.tryLock();
      if (lock == null) {
        channel.close();
        return null;
      }
      return () -> {
        try {
          lock.release();
        } finally {
          channel.close();
        }
      };
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  @Override
  public @Nullable Closeable tryLockShared(Path file) throws IOException {
    // Opened for reading only: a shared (read) lock needs no write access, and the file's bytes
    // and times stay as they are.
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    try {
      FileLock lock = channel.tryLock(0, Long.MAX_VALUE, true);
      if (lock == null) {
        channel.close();
        return null;
      }
      return () -> {
        try {
          lock.release();
        } finally {
          channel.close();
        }
      };
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  @Override
  public void syncDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  @Override
  public long size(Path file) throws IOException {
    return Files.size(file);
  }

  @Override
  public boolean exists(Path file) {
    return Files.exists(file);
  }

  @Override
  public boolean isDirectory(Path path) {
    return Files.isDirectory(path);
  }

  @Override
  public void createDirectories(Path directory) throws IOException {
    Files.createDirectories(directory);
  }

  @Override
  public void truncate(Path file, long sizeBytes) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(sizeBytes);
      channel.force(true);
    }
  }

  @Override
  public long usableSpace(Path directory) throws IOException {
    return Files.getFileStore(directory).getUsableSpace();
  }
}
