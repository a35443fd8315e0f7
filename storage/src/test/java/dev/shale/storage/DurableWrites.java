package dev.shale.storage;

import dev.shale.storage.io.FileNames;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Counts the acknowledged writes of one writer thread on a {@link CrashVfs}, and which of them a
 * power loss must keep: in {@link SyncMode#ALWAYS} every one; in {@link SyncMode#INTERVAL} those
 * a log sync covered. A log sync covers the writes whose records its segment holds, and with them
 * every earlier one (a segment is synced before the next one takes records); with one writer, a
 * write's record is in the segment appended to last when the write returns.
 */
public final class DurableWrites {
  private int acknowledged; // the writer thread's only
  private final AtomicReference<Path> lastAppended = new AtomicReference<>();
  private final Map<Path, Integer> acknowledgedThrough = new ConcurrentHashMap<>();
  private final AtomicInteger coveredBySync = new AtomicInteger();

  /** Listens to {@code vfs}'s appends and syncs (replacing any listener it had). */
  public DurableWrites(CrashVfs vfs) {
    // Log segments only: the flush thread appends to tables and the manifest between a write's
    // append and its return, and a write taken for a table's would count as covered by that
    // table's sync, though its log record was never synced.
    vfs.onAppend(file -> {
      if (isLogSegment(file)) lastAppended.set(file);
    });
    vfs.onSync(file -> coveredBySync.accumulateAndGet(acknowledgedThrough.getOrDefault(file, 0), Math::max));
  }

  /** The write just made returned: it is acknowledged. */
  public void acknowledged() {
    Path segment = lastAppended.get();
    if (segment == null) throw new IllegalStateException("a write acknowledged before any append");
    acknowledgedThrough.put(segment, ++acknowledged);
  }

  private static boolean isLogSegment(Path file) {
    return FileNames.parse(file.getFileName().toString())
        .map(name -> name.kind() == FileNames.Kind.LOG).orElse(false);
  }

  /** How many writes were acknowledged. */
  public int acknowledgedCount() {
    return acknowledged;
  }

  /** How many of the first writes acknowledged a power loss must keep in {@code mode}. */
  public int mustKeep(SyncMode mode) {
    return mode == SyncMode.ALWAYS ? acknowledged : coveredBySync.get();
  }
}
