package dev.shale.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's I/O counters from Linux: {@code read_bytes} and {@code write_bytes} of {@code
 * /proc/self/io} (the bytes it caused to be fetched from, and sent to, the storage layer: a read
 * the page cache answers counts nothing, a write counts as its pages are dirtied), and the major
 * page faults of {@code /proc/self/stat} (faults that waited for the disk: a memory-mapped file
 * read where it is not cached). They include RocksDB's native threads, which is why both engines
 * run inside this one JVM, one after the other.
 *
 * @param readBytes {@code read_bytes}, or -1 where unknown (not Linux)
 * @param writeBytes {@code write_bytes}, or -1 where unknown
 * @param majorFaults major page faults, or -1 where unknown
 */
record ProcIo(long readBytes, long writeBytes, long majorFaults) {
  private static final Path PROC_SELF_IO = Path.of("/proc/self/io");
  private static final Path PROC_SELF_STAT = Path.of("/proc/self/stat");

  /** The counters now. */
  static ProcIo now() {
    long read = -1;
    long write = -1;
    try {
      for (String line : Files.readAllLines(PROC_SELF_IO)) {
        if (line.startsWith("read_bytes:")) read = Long.parseLong(line.substring("read_bytes:".length()).trim());
        if (line.startsWith("write_bytes:")) write = Long.parseLong(line.substring("write_bytes:".length()).trim());
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux, or no permission: unknown.
    }
    return new ProcIo(read, write, readMajorFaults());
  }

  /** What the counters grew by since {@code before}; -1 for a counter unknown at either end. */
  ProcIo since(ProcIo before) {
    return new ProcIo(delta(before.readBytes, readBytes), delta(before.writeBytes, writeBytes),
        delta(before.majorFaults, majorFaults));
  }

  private static long delta(long before, long after) {
    return before < 0 || after < 0 ? -1 : after - before;
  }

  // majflt, the 12th field of /proc/self/stat: the 10th after the command, which is in parentheses.
  private static long readMajorFaults() {
    try {
      String stat = Files.readString(PROC_SELF_STAT);
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(fields[9]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
