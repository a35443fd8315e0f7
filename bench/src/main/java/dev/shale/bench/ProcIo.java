package dev.shale.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * This process's {@code write_bytes} from Linux's {@code /proc/self/io}: the bytes it caused to
 * be sent to the storage layer, counted as page-cache pages are dirtied. It includes RocksDB's
 * native threads, which is why both engines run inside this one JVM, one after the other.
 */
final class ProcIo {
  private static final Path PROC_SELF_IO = Path.of("/proc/self/io");

  private ProcIo() {}

  /** The counter now, or empty where /proc/self/io is missing or unreadable (not Linux). */
  static OptionalLong writeBytes() {
    try {
      for (String line : Files.readAllLines(PROC_SELF_IO)) {
        if (line.startsWith("write_bytes:")) {
          return OptionalLong.of(Long.parseLong(line.substring("write_bytes:".length()).trim()));
        }
      }
      return OptionalLong.empty();
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }
}
