package dev.shale.bench.io;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the calling thread has cost so far: its CPU time in user and kernel mode (the JVM reads
 * {@code CLOCK_THREAD_CPUTIME_ID}, which counts the time in native code and system calls too), and
 * its context switches from {@code /proc/thread-self/status}: voluntary (it blocked: a {@code pread}
 * that waits for the disk, a wait in {@code io_uring_enter}) and involuntary (preempted).
 *
 * @param cpuNanos CPU time, or -1 where the JVM cannot measure it
 * @param voluntarySwitches voluntary context switches, or -1 where unknown (not Linux)
 * @param involuntarySwitches involuntary context switches, or -1 where unknown
 */
record ThreadCost(long cpuNanos, long voluntarySwitches, long involuntarySwitches) {
  static final ThreadCost ZERO = new ThreadCost(0, 0, 0);
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final Path STATUS = Path.of("/proc/thread-self/status");

  /** The calling thread's cost so far. */
  static ThreadCost ofCurrentThread() {
    long cpu = THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    long voluntary = -1;
    long involuntary = -1;
    try {
      for (String line : Files.readAllLines(STATUS)) {
        if (line.startsWith("voluntary_ctxt_switches:")) voluntary = number(line);
        if (line.startsWith("nonvoluntary_ctxt_switches:")) involuntary = number(line);
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux: unknown.
    }
    return new ThreadCost(cpu, voluntary, involuntary);
  }

  private static long number(String line) {
    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
  }

  /** What this thread cost since {@code before}; -1 for a figure unknown at either end. */
  ThreadCost since(ThreadCost before) {
    return new ThreadCost(delta(before.cpuNanos, cpuNanos), delta(before.voluntarySwitches, voluntarySwitches),
        delta(before.involuntarySwitches, involuntarySwitches));
  }

  /** The cost of two threads together; -1 for a figure unknown for either. */
  ThreadCost plus(ThreadCost other) {
    return new ThreadCost(sum(cpuNanos, other.cpuNanos), sum(voluntarySwitches, other.voluntarySwitches),
        sum(involuntarySwitches, other.involuntarySwitches));
  }

  private static long delta(long before, long after) {
    return before < 0 || after < 0 ? -1 : after - before;
  }

  private static long sum(long a, long b) {
    return a < 0 || b < 0 ? -1 : a + b;
  }
}
