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
import java.nio.file.Path;

/**
 * The descriptors the ring's tests need and the main code never makes itself: a file open for
 * reading (the engine's come from PosixFile), and an eventfd (a node's would come from its event
 * loop). Through FFM, as the main code.
 */
final class TestLibc {
  private static final Linker LINKER = Linker.nativeLinker();
  private static final MemoryLayout CAPTURED = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO = CAPTURED.varHandle(MemoryLayout.PathElement.groupElement("errno"));
  private static final MethodHandle OPEN = LINKER.downcallHandle(LINKER.defaultLookup().find("open").orElseThrow(),
      FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Linker.Option.firstVariadicArg(2));
  private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().find("close").orElseThrow(),
      FunctionDescriptor.of(JAVA_INT, JAVA_INT));
  private static final MethodHandle EVENTFD = LINKER.downcallHandle(LINKER.defaultLookup().find("eventfd").orElseThrow(),
      FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
  private static final MethodHandle READ = LINKER.downcallHandle(LINKER.defaultLookup().find("read").orElseThrow(),
      FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), Linker.Option.captureCallState("errno"));

  private static final int O_RDONLY_CLOEXEC = 0x80000;
  private static final int EFD_NONBLOCK_CLOEXEC = 0x800 | 0x80000; // x86-64 and aarch64
  static final int EAGAIN = 11;

  private TestLibc() {}

  static int openForReading(Path file) throws Throwable {
    try (Arena arena = Arena.ofConfined()) {
      int fd = (int) OPEN.invokeExact(arena.allocateFrom(file.toString()), O_RDONLY_CLOEXEC);
      if (fd < 0) throw new IllegalStateException("open " + file + " failed");
      return fd;
    }
  }

  static void close(int fd) throws Throwable {
    int ignored = (int) CLOSE.invokeExact(fd);
  }

  /** A new eventfd whose reads never block (EAGAIN while its count is 0). */
  static int eventFd() throws Throwable {
    int fd = (int) EVENTFD.invokeExact(0, EFD_NONBLOCK_CLOEXEC);
    if (fd < 0) throw new IllegalStateException("eventfd failed");
    return fd;
  }

  /** Reads an eventfd's count, resetting it to 0: the count, or the negated errno (-EAGAIN when it is 0). */
  static long readEventFd(int fd) throws Throwable {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment count = arena.allocate(JAVA_LONG);
      MemorySegment errno = arena.allocate(CAPTURED);
      long n = (long) READ.invokeExact(errno, fd, count, 8L);
      return n == 8 ? count.get(JAVA_LONG, 0) : -(int) ERRNO.get(errno, 0L);
    }
  }
}
