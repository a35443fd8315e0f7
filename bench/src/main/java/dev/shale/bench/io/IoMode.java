package dev.shale.bench.io;

import java.util.List;
import java.util.Locale;

/** How {@code shale bench io} keeps reads in flight. */
public enum IoMode {
  /** Threads that each wait in a blocking {@code pread}, as a node's storage workers do. */
  PREAD("pread"),
  /** One thread that keeps reads in flight on an io_uring, submitting and reaping them in batches. */
  URING("uring");

  private final String cliName;

  IoMode(String cliName) {
    this.cliName = cliName;
  }

  public String cliName() {
    return cliName;
  }

  /** The modes of {@code --mode}: "pread", "uring", or "both" (pread, then uring). */
  public static List<IoMode> named(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "pread" -> List.of(PREAD);
      case "uring" -> List.of(URING);
      case "both" -> List.of(PREAD, URING);
      default -> throw new IllegalArgumentException("--mode must be pread, uring or both: " + name);
    };
  }
}
