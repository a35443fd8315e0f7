package dev.shale.storage;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link Vfs} that passes everything to another one and records each read of a file's bytes
 * ({@link ReadableFile#readFully}) and each prefetch asked for: which file, where, how many bytes.
 * For the tests of what a get, a scan or a compaction reads from the disk. Thread safe.
 */
public final class ReadRecordingVfs extends ForwardingVfs {
  /** One read: {@code bytes} at {@code position} of {@code file}. */
  public record Read(Path file, long position, long bytes) {}

  private final List<Read> reads = new CopyOnWriteArrayList<>();
  private final List<Read> prefetches = new CopyOnWriteArrayList<>();

  public ReadRecordingVfs(Vfs delegate) {
    super(delegate);
  }

  /** Over the real filesystem. */
  public ReadRecordingVfs() {
    this(Vfs.real());
  }

  /** The reads so far, in the order they started. */
  public List<Read> reads() {
    return List.copyOf(reads);
  }

  /** The prefetches asked for so far ({@link ReadableFile#prefetch}), in order: bytes to be read soon. */
  public List<Read> prefetches() {
    return List.copyOf(prefetches);
  }

  /** Forgets the reads and prefetches so far. */
  public void clear() {
    reads.clear();
    prefetches.clear();
  }

  @Override
  public ReadableFile open(Path file) throws IOException {
    ReadableFile opened = super.open(file);
    return new ReadableFile() {
      @Override
      public long size() throws IOException {
        return opened.size();
      }

      @Override
      public void readFully(MemorySegment target, long position) throws IOException {
        reads.add(new Read(file, position, target.byteSize()));
        opened.readFully(target, position);
      }

      @Override
      public void adviseRandom() {
        opened.adviseRandom();
      }

      @Override
      public void prefetch(long position, long length) {
        prefetches.add(new Read(file, position, length));
        opened.prefetch(position, length);
      }

      @Override
      public MemorySegment map(Arena arena) throws IOException {
        return opened.map(arena);
      }

      @Override
      public void close() throws IOException {
        opened.close();
      }
    };
  }
}
