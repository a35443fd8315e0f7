package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import dev.shale.storage.wal.LogWriter;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The log segment writes go to, and its durability: appends, fsyncs, and the switch to a new
 * segment when the memtable is frozen.
 *
 * <p>An engine opened on a full disk has no segment yet ({@link #awaitingSegment}): writes are
 * refused until {@link #start} gives it the one opening could not create then ({@link
 * PendingStart}); meanwhile {@link #sync} and {@link #close} have nothing to do.
 *
 * <p>Thread safety: {@link #append} and {@link #switchTo} are called by one thread at a time (the
 * engine's write leader); {@link #sync} may be called from any thread (the leader in
 * SyncMode.ALWAYS, the interval sync thread in SyncMode.INTERVAL, close). {@link #start} is
 * called under the engine's write lock, under which writers check {@link #isStarted}.
 */
final class ActiveLog {
  /*
   * syncLock serializes fsyncs with the switch to a new segment: the interval sync thread must
   * never force a channel that the switch has closed. The switch forces the old segment before
   * any record goes to the new one, so the log is durable as a prefix: a crash never keeps a
   * later write while losing an earlier one.
   */
  private static final System.Logger LOG = System.getLogger(ActiveLog.class.getName());

  private final ReentrantLock syncLock = new ReentrantLock();
  // Null only until start(), on an engine opened on a full disk; never null again after.
  private volatile @Nullable LogWriter writer;
  private final Env env; // its monotonic clock times the fsyncs
  private final Path firstSegment; // the segment opening created or will create, for messages
  private long syncedBytes; // guarded by syncLock
  private final AtomicLong forces = new AtomicLong();
  private final AtomicLong forceNanos = new AtomicLong(); // the time those fsyncs took

  ActiveLog(LogWriter writer, Env env) {
    this.env = env;
    this.writer = writer;
    this.firstSegment = writer.path();
    this.syncedBytes = writer.sizeBytes();
  }

  private ActiveLog(Path firstSegment, Env env) {
    this.env = env;
    this.firstSegment = firstSegment; // and no writer until start()
  }

  /** A log whose first segment, {@code firstSegment}, could not be created yet: see {@link #start}. */
  static ActiveLog awaitingSegment(Path firstSegment, Env env) {
    return new ActiveLog(firstSegment, env);
  }

  /** Whether the log has a segment to append to: false only until {@link #start}. */
  boolean isStarted() {
    return writer != null;
  }

  /** Gives a log {@link #awaitingSegment} its first segment, created since. */
  void start(LogWriter first) {
    syncLock.lock();
    try {
      if (writer != null) throw new IllegalStateException("the log has its segment already: " + describe());
      syncedBytes = first.sizeBytes();
      writer = first;
    } finally {
      syncLock.unlock();
    }
  }

  long number() {
    return started().number();
  }

  long sizeBytes() {
    return started().sizeBytes();
  }

  String describe() {
    LogWriter current = writer;
    return current == null ? firstSegment.toString() : current.path().toString();
  }

  // Invariant: only a started log is appended to, switched, cut or numbered: writers check
  // isStarted under the write lock first (WriteQueue), and no flush or compaction, which number
  // their snapshots' log_number by it, runs before (PendingStart).
  private LogWriter started() {
    LogWriter current = writer;
    if (current == null) throw new IllegalStateException(firstSegment + " was not created yet");
    return current;
  }

  /** fsyncs issued on log segments since open. */
  long forceCount() {
    return forces.get();
  }

  /** The time the {@link #forceCount} fsyncs took, together, in nanoseconds. */
  long forceNanos() {
    return forceNanos.get();
  }

  // Under syncLock: one fsync at a time, so the two counters move together.
  private void force(LogWriter segment) throws IOException {
    long start = env.nanoTime();
    try {
      segment.force();
    } finally {
      forces.incrementAndGet();
      forceNanos.addAndGet(env.nanoTime() - start);
    }
  }

  void append(List<Entry> entries) throws IOException {
    started().append(entries);
  }

  /**
   * Takes back a failed append: cuts the segment back to {@code sizeBytes}, what
   * {@link #sizeBytes} was before it. Under syncLock, so an interval fsync never races the cut;
   * never below what was synced, since only unsynced appends fail.
   */
  void truncateTo(long sizeBytes) throws IOException {
    syncLock.lock();
    try {
      if (sizeBytes < syncedBytes) {
        throw new IllegalStateException("cutting " + describe() + " to " + sizeBytes
            + " bytes, below the " + syncedBytes + " synced");
      }
      started().truncateTo(sizeBytes);
    } finally {
      syncLock.unlock();
    }
  }

  /** Makes every record appended so far durable; a no-op when nothing was appended since. */
  void sync() throws IOException {
    syncLock.lock();
    try {
      LogWriter current = writer;
      if (current == null) return; // no segment yet: nothing appended
      long size = current.sizeBytes();
      if (size == syncedBytes) return;
      force(current);
      syncedBytes = size;
    } finally {
      syncLock.unlock();
    }
  }

  /** Forces and closes the current segment, then directs appends to {@code next}. */
  void switchTo(LogWriter next) throws IOException {
    syncLock.lock();
    try {
      LogWriter previous = started();
      force(previous);
      writer = next;
      syncedBytes = next.sizeBytes();
      try {
        previous.close();
      } catch (IOException e) {
        // Its records are forced: a failed close loses nothing.
        LOG.log(Level.WARNING, "closing " + previous.path() + " failed: " + e);
      }
    } finally {
      syncLock.unlock();
    }
  }

  /** Closes the segment; {@code force} first unless the log already failed. */
  void close(boolean force) throws IOException {
    syncLock.lock();
    LogWriter current = writer;
    try {
      if (force && current != null) {
        force(current);
      }
    } finally {
      try {
        if (current != null) current.close();
      } finally {
        syncLock.unlock();
      }
    }
  }
}
