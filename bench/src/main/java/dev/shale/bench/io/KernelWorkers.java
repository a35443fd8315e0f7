package dev.shale.bench.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The io_uring worker threads the kernel runs for this process now ({@code iou-wrk-*} in {@code
 * /proc/self/task/}*{@code /comm}): a read the kernel cannot start without blocking (a buffered
 * read of pages it does not hold, a file system without non-blocking direct reads) is handed to
 * one, and then costs a thread switch after all, counted in the process's CPU time but not the
 * reading thread's. Direct reads on ext4 or xfs should need none.
 */
final class KernelWorkers {
  private static final Path TASKS = Path.of("/proc/self/task");

  private KernelWorkers() {}

  /** How many there are now, or -1 where unknown (not Linux). */
  static int count() {
    try (Stream<Path> tasks = Files.list(TASKS)) {
      return (int) tasks.filter(KernelWorkers::isIoWorker).count();
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static boolean isIoWorker(Path task) {
    try {
      return Files.readString(task.resolve("comm")).startsWith("iou-wrk");
    } catch (IOException e) {
      return false; // the thread ended while listed
    }
  }
}
