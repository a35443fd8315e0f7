package dev.shale.storage.uring;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The C library calls an {@link IoUring} makes, through FFM: {@code syscall(2)} for the three
 * io_uring calls (the C library has no wrappers of its own for them), {@code mmap}, {@code munmap},
 * {@code close}, and {@code strerror} to name an errno. Each call that can fail leaves errno in the
 * caller's {@link #errnoSegment}, which a ring allocates once (its calls are hot: one per batch).
 *
 * <p>Every argument of {@code syscall} is passed as a 64-bit {@code long} or a pointer: it reads
 * its variadic arguments as longs, and an {@code int} passed in their place could leave the upper
 * half of the register undefined.
 */
final class LinuxCalls {
  static final int EINTR = 4;
  static final int EBADF = 9;

  private static final Linker LINKER = Linker.nativeLinker();
  private static final MemoryLayout CAPTURED = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO = CAPTURED.varHandle(MemoryLayout.PathElement.groupElement("errno"));
  private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

  // long syscall(long number, ...): the setup call (entries, params*).
  private static final MethodHandle SETUP = downcall("syscall",
      FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS), CAPTURE_ERRNO, Linker.Option.firstVariadicArg(1));
  // The enter call (fd, to_submit, min_complete, flags, sigset*, sigset size).
  private static final MethodHandle ENTER = downcall("syscall",
      FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG),
      CAPTURE_ERRNO, Linker.Option.firstVariadicArg(1));
  // The register call (fd, opcode, arg*, nr_args).
  private static final MethodHandle REGISTER = downcall("syscall",
      FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG),
      CAPTURE_ERRNO, Linker.Option.firstVariadicArg(1));
  private static final MethodHandle MMAP = downcall("mmap",
      FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), CAPTURE_ERRNO);
  private static final MethodHandle MUNMAP = downcall("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
  private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
  private static final MethodHandle STRERROR = downcall("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

  private static final int PROT_READ_WRITE = 0x1 | 0x2;
  private static final int MAP_SHARED_POPULATE = 0x01 | 0x8000; // MAP_SHARED | MAP_POPULATE, x86-64 and aarch64 alike

  private LinuxCalls() {}

  private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
    MemorySegment symbol = LINKER.defaultLookup().find(name)
        .orElseThrow(() -> new IllegalStateException("the C library has no " + name));
    return LINKER.downcallHandle(symbol, descriptor, options);
  }

  /** Memory for the errno of the calls below; read back with {@link #errno}. */
  static MemorySegment errnoSegment(Arena arena) {
    return arena.allocate(CAPTURED);
  }

  static int errno(MemorySegment captured) {
    return (int) ERRNO.get(captured, 0L);
  }

  /** io_uring_setup: the ring's descriptor, or -1 (errno in {@code errno}). */
  static int setup(MemorySegment errno, int entries, MemorySegment params) {
    try {
      return (int) (long) SETUP.invokeExact(errno, RingLayout.SYS_IO_URING_SETUP, (long) entries, params);
    } catch (Throwable e) {
      throw new IllegalStateException("io_uring_setup through FFM failed", e);
    }
  }

  /** io_uring_enter without a signal mask: how many submissions it took, or -1 (errno in {@code errno}). */
  static int enter(MemorySegment errno, int ringFd, int toSubmit, int minComplete, int flags) {
    try {
      return (int) (long) ENTER.invokeExact(errno, RingLayout.SYS_IO_URING_ENTER, (long) ringFd, (long) toSubmit,
          (long) minComplete, (long) flags, MemorySegment.NULL, 0L);
    } catch (Throwable e) {
      throw new IllegalStateException("io_uring_enter through FFM failed", e);
    }
  }

  /** io_uring_register: 0 or a positive result, or -1 (errno in {@code errno}). */
  static int register(MemorySegment errno, int ringFd, int opcode, MemorySegment arg, int count) {
    try {
      return (int) (long) REGISTER.invokeExact(errno, RingLayout.SYS_IO_URING_REGISTER, (long) ringFd,
          (long) opcode, arg, (long) count);
    } catch (Throwable e) {
      throw new IllegalStateException("io_uring_register through FFM failed", e);
    }
  }

  /**
   * Maps {@code bytes} of the ring {@code ringFd} at {@code offset} (one of the IORING_OFF_
   * constants), shared with the kernel and populated now: the mapping, or {@link
   * MemorySegment#NULL} on failure (errno in {@code errno}).
   */
  static MemorySegment mapRing(MemorySegment errno, int ringFd, long bytes, long offset) {
    try {
      MemorySegment address = (MemorySegment) MMAP.invokeExact(errno, MemorySegment.NULL, bytes, PROT_READ_WRITE,
          MAP_SHARED_POPULATE, ringFd, offset);
      // MAP_FAILED is (void *) -1.
      return address.address() == -1L ? MemorySegment.NULL : address.reinterpret(bytes);
    } catch (Throwable e) {
      throw new IllegalStateException("mmap through FFM failed", e);
    }
  }

  /** Unmaps what {@link #mapRing} mapped; munmap of a valid mapping does not fail. */
  static void unmap(MemorySegment mapping) {
    try {
      int ignored = (int) MUNMAP.invokeExact(mapping, mapping.byteSize());
    } catch (Throwable e) {
      throw new IllegalStateException("munmap through FFM failed", e);
    }
  }

  /** Closes a descriptor; Linux frees it even when close reports an error, so that is not retried. */
  static void close(int fd) {
    try {
      int ignored = (int) CLOSE.invokeExact(fd);
    } catch (Throwable e) {
      throw new IllegalStateException("close through FFM failed", e);
    }
  }

  /** The C library's name for {@code errno} ("Operation not permitted"), with its number. */
  static String describe(int errno) {
    try {
      MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
      return text.reinterpret(256).getString(0) + " (errno " + errno + ")";
    } catch (Throwable e) {
      return "errno " + errno;
    }
  }
}
