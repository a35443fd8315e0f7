package dev.shale.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The bytes added to the files of a directory while a workload runs, by sampling every file's
 * size: a new file counts whole, a grown file counts its growth. Portable, and a cross-check of
 * {@link ProcIo}; it misses files created and deleted between two samples (so it can only
 * under-count), and rewrites in place.
 */
final class DirectoryGrowth implements AutoCloseable {
  static final long SAMPLE_MILLIS = 50;

  private final Path directory;
  private final Thread sampler;
  private final Object lock = new Object();
  private final Map<Path, Long> sizes = new HashMap<>(); // guarded by lock
  private long grownBytes; // guarded by lock
  private boolean stopped; // guarded by lock

  private DirectoryGrowth(Path directory) {
    this.directory = directory;
    sample(); // the files present at the start count only by what they gain
    synchronized (lock) {
      grownBytes = 0;
    }
    this.sampler = Thread.ofPlatform().daemon().name("bench-directory-growth").unstarted(this::run);
  }

  /** Starts sampling {@code directory} in a background thread. */
  static DirectoryGrowth start(Path directory) {
    DirectoryGrowth growth = new DirectoryGrowth(directory);
    growth.sampler.start();
    return growth;
  }

  /** Stops sampling, takes a last sample, and returns the bytes added since the start. Idempotent. */
  long stop() {
    synchronized (lock) {
      if (stopped) return grownBytes;
      stopped = true;
    }
    sampler.interrupt();
    try {
      sampler.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sample();
    synchronized (lock) {
      return grownBytes;
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** The sum of the sizes of the files under {@code directory} (du --apparent-size). */
  static long spaceBytes(Path directory) {
    long total = 0;
    for (Map.Entry<Path, Long> file : fileSizes(directory).entrySet()) total += file.getValue();
    return total;
  }

  private void run() {
    while (!Thread.currentThread().isInterrupted()) {
      sample();
      try {
        TimeUnit.MILLISECONDS.sleep(SAMPLE_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void sample() {
    Map<Path, Long> now = fileSizes(directory);
    synchronized (lock) {
      for (Map.Entry<Path, Long> file : now.entrySet()) {
        long before = sizes.getOrDefault(file.getKey(), 0L);
        if (file.getValue() > before) grownBytes += file.getValue() - before;
      }
      sizes.clear();
      sizes.putAll(now);
    }
  }

  /**
   * Every regular file under {@code directory} with its size. A file or subdirectory deleted
   * between its listing and its reading is skipped and the walk goes on: an engine deletes
   * compacted tables all the time, and a walk that stopped at the first one gone returned a
   * fraction of the store (DirectoryGrowthTest).
   */
  private static Map<Path, Long> fileSizes(Path directory) {
    Map<Path, Long> sizes = new HashMap<>();
    try {
      Files.walkFileTree(directory, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
          if (attributes.isRegularFile()) sizes.put(file, attributes.size());
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
          if (e instanceof NoSuchFileException) return FileVisitResult.CONTINUE; // it holds no space any more
          throw e;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, @Nullable IOException e) throws IOException {
          if (e != null && !(e instanceof NoSuchFileException)) throw e;
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + directory, e);
    }
    return sizes;
  }
}
