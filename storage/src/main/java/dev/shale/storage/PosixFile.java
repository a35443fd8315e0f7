package dev.shale.storage;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A file open for reading through the C library's {@code open}, {@code pread}, {@code
 * posix_fadvise} and {@code close}, called by FFM: {@link RealVfs}'s reads of table blocks into
 * native memory.
 *
 * <p>Why not a {@link java.nio.channels.FileChannel}: its positional read does the same
 * {@code pread}, but it keeps the descriptor to itself, and the engine needs
 * {@code posix_fadvise(POSIX_FADV_RANDOM)} on it. Without that advice the kernel may read ahead
 * of a point read; with it, a read of one block costs one I/O of that block (docs/design.md,
 * "Reading tables").
 *
 * <p>Thread safe: {@code pread} does not move a file position, so any number of threads read at
 * once. {@link #close} must come after the last read (the engine's reference counts see to it).
 */
final class PosixFile {
  private static final int O_RDONLY = 0;
  private static final int O_CLOEXEC = 0x80000; // Linux x86-64 and aarch64
  // O_DIRECT differs between architectures (asm-generic/fcntl.h, arm64's own); 0 where unknown.
  private static final int O_DIRECT = switch (System.getProperty("os.arch")) {
    case "amd64", "x86_64" -> 0x4000;
    case "aarch64" -> 0x10000;
    default -> 0;
  };
  private static final int EINVAL = 22;
  private static final int SEEK_END = 2;
  private static final int EINTR = 4;
  private static final int POSIX_FADV_RANDOM = 1;
  private static final int POSIX_FADV_WILLNEED = 3;

  private static final Linker LINKER = Linker.nativeLinker();
  private static final MemoryLayout CAPTURED = Linker.Option.captureStateLayout();
  // Where each thread's preads leave errno: made once per thread (freed once the thread is gone),
  // not per read, since a get's read is hot and a malloc and free per pread showed in its profile.
  private static final ThreadLocal<MemorySegment> READ_ERRNO =
      ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURED));
  private static final VarHandle ERRNO =
      CAPTURED.varHandle(MemoryLayout.PathElement.groupElement("errno"));
  private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

  private static final MethodHandle OPEN = downcall("open",
      FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), CAPTURE_ERRNO, Linker.Option.firstVariadicArg(2));
  private static final MethodHandle PREAD = downcall("pread",
      FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), CAPTURE_ERRNO);
  private static final MethodHandle LSEEK = downcall("lseek",
      FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT), CAPTURE_ERRNO);
  private static final MethodHandle FADVISE = downcall("posix_fadvise",
      FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
  private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
  private static final MethodHandle STRERROR = downcall("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

  private final Path path;
  private final int fd;

  private PosixFile(Path path, int fd) {
    this.path = path;
    this.fd = fd;
  }

  private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
    SymbolLookup libc = LINKER.defaultLookup();
    return LINKER.downcallHandle(
        libc.find(name).orElseThrow(() -> new IllegalStateException("the C library has no " + name)), descriptor, options);
  }

  /** Opens {@code path} read-only (NoSuchFileException, or an IOException naming errno). */
  static PosixFile open(Path path) throws IOException {
    PosixFile opened = open(path, 0);
    if (opened == null) throw failure("open", path, EINVAL);
    return opened;
  }

  /**
   * Opens {@code path} read-only with {@code O_DIRECT}: its reads go from the disk to the caller's
   * memory without the page cache, and must be aligned ({@link #DIRECT_ALIGNMENT}). Null where
   * direct I/O is not to be had: a file system that refuses it (EINVAL, as tmpfs before Linux
   * 6.6), or an architecture whose flag this class does not know.
   */
  static @Nullable PosixFile openDirect(Path path) throws IOException {
    return O_DIRECT == 0 ? null : open(path, O_DIRECT);
  }

  /**
   * What the offset, length and memory address of a read through {@link #openDirect} must be
   * multiples of: the logical block size of the device, which is 512 or 4096 bytes; 4096 serves both.
   */
  static final long DIRECT_ALIGNMENT = 4096;

  // Null if the open flags are refused (EINVAL).
  private static @Nullable PosixFile open(Path path, int flags) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment name = arena.allocateFrom(path.toString());
      MemorySegment errno = arena.allocate(CAPTURED);
      int fd = (int) OPEN.invokeExact(errno, name, O_RDONLY | O_CLOEXEC | flags, 0);
      if (fd < 0) {
        int code = errno(errno);
        if (code == 2) throw new java.nio.file.NoSuchFileException(path.toString());
        if (code == EINVAL && flags != 0) return null;
        throw failure("open", path, code);
      }
      return new PosixFile(path, fd);
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException("open through FFM failed", e);
    }
  }

  /**
   * The descriptor, for a read the kernel does on this file's behalf ({@link RingReads}): valid
   * until {@link #close}. Never handed out of this package.
   */
  int descriptor() {
    return fd;
  }

  /** The file's size now. */
  long size() throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment errno = arena.allocate(CAPTURED);
      long size = (long) LSEEK.invokeExact(errno, fd, 0L, SEEK_END);
      if (size < 0) throw failure("lseek", path, errno(errno));
      return size;
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException("lseek through FFM failed", e);
    }
  }

  /**
   * Fills {@code target} with the bytes at {@code position}: an {@link EOFException} if the file
   * ends first, an IOException naming errno if a read fails (interrupted reads are retried).
   */
  void readFully(MemorySegment target, long position) throws IOException {
    readAtLeast(target, position, target.byteSize());
  }

  /**
   * Reads into {@code target} the bytes at {@code position}, at least {@code wanted} of them (the
   * rest of {@code target} only as far as the file goes): an {@link EOFException} if the file ends
   * before {@code wanted}, an IOException naming errno if a read fails (interrupted reads are
   * retried). How a direct read of whole aligned blocks reads the file's last, partial one.
   */
  void readAtLeast(MemorySegment target, long position, long wanted) throws IOException {
    MemorySegment errno = READ_ERRNO.get();
    try {
      long done = 0;
      long room = target.byteSize();
      while (done < wanted) {
        long n = (long) PREAD.invokeExact(errno, fd, target.asSlice(done), room - done, position + done);
        if (n > 0) {
          done += n;
        } else if (n == 0) {
          throw new EOFException(path + ": " + wanted + " bytes at offset " + position + " run past the end of the file ("
              + (position + done) + ")");
        } else {
          int code = errno(errno);
          if (code != EINTR) throw failure("pread of " + room + " bytes at offset " + position, path, code);
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException("pread through FFM failed", e);
    }
  }

  /**
   * Tells the kernel that reads of this file are random: it reads no more than each read asks
   * for (no read-ahead). Advice only: a kernel that refuses it is not an error.
   */
  void adviseRandom() {
    advise(0L, 0L, POSIX_FADV_RANDOM);
  }

  /**
   * Tells the kernel that {@code length} bytes at {@code offset} will be read soon: it starts
   * reading them into the page cache and returns. Advice only.
   */
  void adviseWillNeed(long offset, long length) {
    advise(offset, length, POSIX_FADV_WILLNEED);
  }

  // posix_fadvise's result is ignored: advice a kernel does not take changes nothing we rely on.
  private void advise(long offset, long length, int advice) {
    try {
      int ignored = (int) FADVISE.invokeExact(fd, offset, length, advice);
    } catch (Throwable e) {
      throw new IllegalStateException("posix_fadvise through FFM failed", e);
    }
  }

  void close() throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment errno = arena.allocate(CAPTURED);
      // Linux frees the descriptor even when close reports an error: never retry it.
      int result = (int) CLOSE.invokeExact(errno, fd);
      if (result != 0) throw failure("close", path, errno(errno));
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException("close through FFM failed", e);
    }
  }

  private static int errno(MemorySegment captured) {
    return (int) ERRNO.get(captured, 0L);
  }

  private static IOException failure(String call, Path path, int errno) {
    return new IOException(path + ": " + call + " failed: " + describe(errno) + " (errno " + errno + ")");
  }

  private static String describe(int errno) {
    try {
      MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
      return text.reinterpret(256).getString(0);
    } catch (Throwable e) {
      return "error";
    }
  }
}
