package dev.shale.storage;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Sets the nice value of the calling thread, through the C library's {@code setpriority(2)} (by
 * FFM: the JDK has no call for it; {@link Thread#setPriority} is ignored on Linux).
 *
 * <p>On Linux a Java platform thread is one kernel task, and {@code setpriority(PRIO_PROCESS, tid,
 * n)} with the task id from {@code gettid()} changes that thread alone, not the process (man 2
 * setpriority, NOTES). Raising one's own nice value needs no privilege. Where either function is
 * missing (not Linux, or a C library before glibc 2.30 without {@code gettid}) nothing changes.
 * {@link RealEnv} runs a thread's body after this.
 */
final class ThreadNiceness {
  private static final int PRIO_PROCESS = 0;
  private static final System.Logger LOG = System.getLogger(ThreadNiceness.class.getName());

  /** The two C functions; null where the pair does not give per-thread nice values (not Linux). */
  private static final @Nullable Calls CALLS = Calls.find();

  private record Calls(MethodHandle gettid, MethodHandle setpriority) {
    static @Nullable Calls find() {
      if (!System.getProperty("os.name", "").startsWith("Linux")) return null;
      Linker linker = Linker.nativeLinker();
      SymbolLookup libc = linker.defaultLookup();
      Optional<MemorySegment> gettid = libc.find("gettid");
      Optional<MemorySegment> setpriority = libc.find("setpriority");
      if (gettid.isEmpty() || setpriority.isEmpty()) return null;
      return new Calls(linker.downcallHandle(gettid.get(), FunctionDescriptor.of(JAVA_INT)),
          linker.downcallHandle(setpriority.get(), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT)));
    }
  }

  private ThreadNiceness() {}

  /** Sets the calling thread's nice value to {@code niceness} (0 leaves it alone); logs a failure. */
  static void setForCurrentThread(int niceness) {
    if (niceness == 0) return;
    Calls calls = CALLS;
    if (calls == null) {
      LOG.log(System.Logger.Level.DEBUG, "per-thread nice values are not available here; " + Thread.currentThread().getName()
          + " keeps its priority");
      return;
    }
    try {
      int tid = (int) calls.gettid().invokeExact();
      int result = (int) calls.setpriority().invokeExact(PRIO_PROCESS, tid, niceness);
      if (result != 0) {
        LOG.log(System.Logger.Level.WARNING, "setpriority(" + niceness + ") failed for " + Thread.currentThread().getName()
            + "; it keeps its priority");
      }
    } catch (Throwable e) {
      throw new IllegalStateException("setpriority through FFM failed", e);
    }
  }
}
