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
 * {@link Vfs#real()}: the operating system's filesystem, through file channels, and for reading
 * through the C library's {@code pread} ({@link PosixFile}).
 */
final class RealVfs implements Vfs {
  static final RealVfs INSTANCE = new RealVfs();

  private RealVfs() {}

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
    PosixFile opened = PosixFile.open(file);
    return new ReadableFile() {
      @Override
      public long size() throws IOException {
        return opened.size();
      }

      @Override
      public void readFully(MemorySegment target, long position) throws IOException {
        opened.readFully(target, position);
      }

      @Override
      public void adviseRandom() {
        opened.adviseRandom();
      }

      @Override
      public void prefetch(long position, long length) {
        opened.adviseWillNeed(position, length);
      }

      @Override
      public MemorySegment map(Arena arena) throws IOException {
        // Logs and manifests, read once from start to end at open: a mapping of their own.
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
          long size = channel.size();
          return size == 0 ? MemorySegment.NULL : channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
        }
      }

      @Override
      public void close() throws IOException {
        opened.close();
      }
    };
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
