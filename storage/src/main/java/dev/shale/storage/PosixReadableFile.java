package dev.shale.storage;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;

/**
 * {@link RealVfs}'s file open for reading: reads with {@code pread} ({@link PosixFile}), and,
 * when the file system is {@link Vfs#realDirect()}, point reads of blocks through a second
 * descriptor opened with {@code O_DIRECT}, which bypass the page cache.
 *
 * <p>Why direct point reads (docs/design.md, "Reading tables"): on a store larger than memory a
 * block a get reads is rarely read again soon, yet a buffered read puts it in the page cache,
 * whose pages a memory cgroup then has to reclaim while other reads wait; and a block in the
 * block cache is held twice. Read directly, the block cache is the one cache of point reads, and
 * the memory the page cache would take is the block cache's. Scans, compactions and the index and
 * filter read at open still read through the page cache, with its read-ahead.
 *
 * <p>Coherence: tables are written once and synced before any point read of them; a direct read
 * of a range the page cache holds dirty is written back first by the kernel anyway.
 *
 * <p>Thread safe, as {@link PosixFile}.
 */
@SuppressForbidden(reason = "the real filesystem's files: with RealVfs, the one place that calls the JDK's file APIs")
final class PosixReadableFile implements Vfs.ReadableFile {
  private final Path path;
  private final PosixFile buffered;
  private final @Nullable PosixFile direct; // null: point reads are buffered too

  private PosixReadableFile(Path path, PosixFile buffered, @Nullable PosixFile direct) {
    this.path = path;
    this.buffered = buffered;
    this.direct = direct;
  }

  /**
   * Opens {@code path}; with {@code directPointReads}, also for direct point reads, where the file
   * system allows them (else point reads are buffered, as all others).
   */
  static PosixReadableFile open(Path path, boolean directPointReads) throws IOException {
    PosixFile buffered = PosixFile.open(path);
    try {
      return new PosixReadableFile(path, buffered, directPointReads ? PosixFile.openDirect(path) : null);
    } catch (IOException | RuntimeException | Error e) {
      buffered.close();
      throw e;
    }
  }

  @Override
  public long size() throws IOException {
    return buffered.size();
  }

  @Override
  public void readFully(MemorySegment target, long position) throws IOException {
    buffered.readFully(target, position);
  }

  /**
   * A direct read reads whole aligned blocks of the device into aligned memory, from the aligned
   * offset at or below {@code position} to the one at or above its end, and copies the wanted bytes
   * out: a 4 KiB table block at an arbitrary offset spans two such blocks, and a copy of a few KiB
   * costs far less than the read. The memory is the thread's {@link DirectReadBuffer}, or for a
   * read larger than it keeps, memory of the read's own.
   */
  @Override
  public void readBlock(MemorySegment target, long position) throws IOException {
    if (direct == null) {
      buffered.readFully(target, position);
      return;
    }
    long alignment = PosixFile.DIRECT_ALIGNMENT;
    long start = position & -alignment;
    long end = position + target.byteSize();
    long span = ((end + alignment - 1) & -alignment) - start;
    if (span <= DirectReadBuffer.MAX_BYTES) {
      readDirect(direct, DirectReadBuffer.of(span), start, target, position);
      return;
    }
    try (Arena arena = Arena.ofConfined()) {
      readDirect(direct, arena.allocate(span, alignment), start, target, position);
    }
  }

  // Reads into aligned (at start, its size rounded to whole aligned blocks) and copies target's bytes out.
  private void readDirect(PosixFile direct, MemorySegment aligned, long start, MemorySegment target, long position)
      throws IOException {
    long end = position + target.byteSize();
    // At least to the wanted end: the file's last aligned block is partial. An error is the
    // read's: no fallback to a buffered read, which would hide a direct path that never works.
    try {
      direct.readAtLeast(aligned, start, end - start);
    } catch (IOException e) {
      // Past the end of the file a direct read's second pread starts unaligned and fails with
      // EINVAL, not EOF: say what it is, as a buffered read would.
      long size = buffered.size();
      if (end > size) {
        throw new EOFException(path + ": " + target.byteSize() + " bytes at offset " + position
            + " run past the end of the file (" + size + ")");
      }
      throw e;
    }
    MemorySegment.copy(aligned, position - start, target, 0, target.byteSize());
  }

  /** The descriptor opened with {@code O_DIRECT} for point reads, or null where there is none. */
  @Nullable PosixFile direct() {
    return direct;
  }

  @Override
  public void adviseRandom() {
    buffered.adviseRandom();
  }

  @Override
  public void prefetch(long position, long length) {
    buffered.adviseWillNeed(position, length);
  }

  @Override
  public MemorySegment map(Arena arena) throws IOException {
    // Logs and manifests, read once from start to end at open: a mapping of their own.
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = channel.size();
      return size == 0 ? MemorySegment.NULL : channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      buffered.close();
    } finally {
      if (direct != null) direct.close();
    }
  }
}
