package dev.shale.storage;

import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The only door between the engine and the disk (as Pebble's {@code vfs.FS}, LevelDB's
 * {@code Env}): every file the engine, and every store built on it, creates, reads, maps, syncs,
 * renames, deletes, lists or locks goes through one of these. Production uses {@link #real()};
 * tests pass one that injects I/O errors or forgets what was never synced, in
 * {@link EngineOptions#vfs()}.
 *
 * <p>Files are written once, from start to end: a file is created new and only appended to
 * (the engine's logs, manifests and tables all are), never overwritten in place. A filesystem
 * that simulates power loss relies on that.
 *
 * <p>Durability is explicit: bytes appended to a file survive a power loss only after
 * {@link WritableFile#sync}, and a name created, renamed or deleted only after
 * {@link #syncDirectory} of its directory.
 *
 * <p>Thread safety: every method may be called from any number of threads at once; one handle is
 * used by one thread at a time, except that {@link WritableFile#sync} may run beside an append.
 */
public interface Vfs {
  /**
   * The real filesystem: {@link java.nio.channels.FileChannel}s, mapped with the FFM API, and
   * {@code pread} into native memory.
   */
  static Vfs real() {
    return RealVfs.INSTANCE;
  }

  /**
   * {@link #real()}, with the point reads of table blocks ({@link ReadableFile#readBlock}) made
   * with {@code O_DIRECT}, past the page cache, where the file system allows it: the block cache
   * is then the only cache of what gets read (docs/design.md, "Reading tables"). All other reads
   * and every write go through the page cache as with {@link #real()}.
   */
  static Vfs realDirect() {
    return RealVfs.DIRECT_POINT_READS;
  }

  /**
   * Makes {@code link} a second name of the existing file {@code existing} (a hard link: both
   * names share the file's bytes, which stay on disk until the last name is deleted), in the
   * same file system. For checkpoints; a file system without hard links throws.
   */
  default void link(Path existing, Path link) throws IOException {
    throw new IOException("this file system does not make hard links (" + link + " -> " + existing + ")");
  }

  /** Creates {@code file}, which must not exist (FileAlreadyExistsException), for appending. */
  WritableFile create(Path file) throws IOException;

  /** Opens {@code file} for reading (NoSuchFileException if it is missing). */
  ReadableFile open(Path file) throws IOException;

  /** Renames {@code source} to {@code target} atomically, replacing {@code target} if it exists. */
  void rename(Path source, Path target) throws IOException;

  /** Deletes {@code file}; returns false if there was none. */
  boolean delete(Path file) throws IOException;

  /** The entries of {@code directory}, as paths resolved against it, in no order. */
  List<Path> list(Path directory) throws IOException;

  /**
   * Takes the exclusive OS lock on {@code file}, creating it if needed; the lock is held until
   * the returned handle is closed. Returns null if another process holds it.
   *
   * @throws java.nio.channels.OverlappingFileLockException if this process holds it already
   */
  @Nullable Closeable tryLock(Path file) throws IOException;

  /**
   * Takes a shared OS lock on the existing {@code file} without creating, writing or truncating
   * it, held until the returned handle is closed: how the offline tools keep an engine out of a
   * directory they read, and stay out of one an engine holds. Returns null if another process
   * holds the exclusive lock ({@link #tryLock}).
   *
   * @throws java.nio.file.NoSuchFileException if {@code file} does not exist
   * @throws java.nio.channels.OverlappingFileLockException if this process holds a lock on it already
   */
  default @Nullable Closeable tryLockShared(Path file) throws IOException {
    throw new IOException("this file system does not take shared locks (" + file + ")");
  }

  /** Forces {@code directory}'s entries to the device: names created, renamed or deleted in it. */
  void syncDirectory(Path directory) throws IOException;

  /** The size of {@code file} in bytes. */
  long size(Path file) throws IOException;

  boolean exists(Path file);

  /** Whether {@code path} is a directory (false if it is missing or a file). */
  boolean isDirectory(Path path);

  /** Creates {@code directory} and any missing parents; nothing if it exists already. */
  void createDirectories(Path directory) throws IOException;

  /**
   * Cuts the existing {@code file} back to {@code sizeBytes} and forces the cut to the device:
   * how recovery drops a log segment's torn tail before it keeps the segment (the one change of a
   * written file in place; the bytes cut were never acknowledged).
   */
  void truncate(Path file, long sizeBytes) throws IOException;

  /** The bytes this process may still write on the filesystem holding {@code directory}. */
  long usableSpace(Path directory) throws IOException;

  /** A file being written: appends, then syncs. Not thread safe (see {@link Vfs}). */
  interface WritableFile extends Closeable {
    /**
     * Appends some of {@code source}'s remaining bytes at the end of the file, advancing its
     * position; returns how many (a short write is allowed, as for a channel).
     */
    int append(ByteBuffer source) throws IOException;

    /**
     * Forces the appended bytes to the device; with {@code metadata}, also the file's metadata
     * (fsync rather than fdatasync). The size needed to read the bytes is always forced.
     */
    void sync(boolean metadata) throws IOException;

    /**
     * Cuts the file back to {@code sizeBytes}, dropping the bytes appended after it; appends go
     * on from there. How a writer takes back an append that failed part way (a full disk), so the
     * file stays a clean prefix. Never below what was synced: that would change durable bytes,
     * which files written once never do.
     */
    void truncate(long sizeBytes) throws IOException;
  }

  /**
   * A file open for reading. Any number of threads may {@link #readFully} at once; {@link #close}
   * comes after the last read.
   */
  interface ReadableFile extends Closeable {
    long size() throws IOException;

    /**
     * Fills {@code target} with the bytes at {@code position} of the file: an
     * {@link java.io.EOFException} if the file ends first.
     */
    void readFully(MemorySegment target, long position) throws IOException;

    /**
     * {@link #readFully}, for a point read of one table block, which nothing reads after it but
     * through the block cache: a file system may read it past its page cache ({@link
     * Vfs#realDirect()}). The default is {@link #readFully}.
     */
    default void readBlock(MemorySegment target, long position) throws IOException {
      readFully(target, position);
    }

    /**
     * Advises that this handle's reads are random, each for what it needs and no more: the kernel
     * then reads no more than each read asks for (no read-ahead). Advice only, never an error.
     */
    void adviseRandom();

    /**
     * Asks the kernel to start reading {@code length} bytes at {@code position} into the page
     * cache now, without waiting for them, so that a read of them soon finds them there (how an
     * iterator overlaps the disk's work with its own). Advice only, never an error.
     */
    void prefetch(long position, long length);

    /**
     * Maps the whole file read-only into {@code arena}, which owns the mapping (closing this
     * handle does not unmap it). An empty file maps to {@link MemorySegment#NULL}.
     */
    MemorySegment map(Arena arena) throws IOException;
  }
}
