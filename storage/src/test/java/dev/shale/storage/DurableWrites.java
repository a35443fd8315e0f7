package dev.shale.storage;

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
    vfs.onAppend(lastAppended::set);
    vfs.onSync(file -> coveredBySync.accumulateAndGet(acknowledgedThrough.getOrDefault(file, 0), Math::max));
  }

  /** The write just made returned: it is acknowledged. */
  public void acknowledged() {
    Path segment = lastAppended.get();
    if (segment == null) throw new IllegalStateException("a write acknowledged before any append");
    acknowledgedThrough.put(segment, ++acknowledged);
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
