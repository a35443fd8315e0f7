package dev.shale.sim;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;

/**
 * A run's events, each a line stamped with its virtual time: all of them folded into one 64-bit
 * hash (FNV-1a over the lines' UTF-8), which two runs of one seed must share, and the latest
 * {@code keptLines} kept to print when the run fails. The run's directory, which an engine's
 * failure quotes in its file names, is written {@code <run>}: it differs from run to run, the
 * run does not.
 */
final class Trace {
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private final VirtualTime time;
  private final int keptLines;
  private final String directory;
  private final ArrayDeque<String> kept = new ArrayDeque<>();
  private long hash = FNV_OFFSET;
  private long events;

  Trace(VirtualTime time, int keptLines, Path directory) {
    this.directory = directory.toAbsolutePath().normalize().toString();
    this.time = time;
    this.keptLines = keptLines;
  }

  void event(String what) {
    String line = time.nowMillis() + " " + what.replace(directory, "<run>");
    for (byte b : line.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= FNV_PRIME;
    }
    hash ^= '\n';
    hash *= FNV_PRIME;
    events++;
    if (keptLines == 0) return;
    if (kept.size() == keptLines) kept.removeFirst();
    kept.addLast(line);
  }

  /** The hash of every event so far, as 16 hex digits. */
  String hex() {
    return String.format("%016x", hash);
  }

  long events() {
    return events;
  }

  /** The latest events, oldest first. */
  List<String> latest() {
    return List.copyOf(kept);
  }
}
