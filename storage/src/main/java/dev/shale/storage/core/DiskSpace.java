package dev.shale.storage.core;

import dev.shale.storage.DiskFullException;
import dev.shale.storage.Env;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The engine's account of its disk's free space: writes are refused before the disk is full,
 * after an append found it full, and while opening waits for room for its new manifest and log
 * segment, until there is room again; then they are taken again by themselves (docs/design.md,
 * "A full disk").
 *
 * <p>Thread safety: synchronized. The write leader asks once per write group, the compaction
 * thread once per compaction, status probes read {@link #refusal}.
 */
final class DiskSpace {
  /*
   * Why a reserve. Writes fill the log; a flush writes a memtable's table and only then deletes
   * its log segment, so it needs room of its own, about a memtable, before it frees any. Were
   * writes allowed the last byte, no flush could free a segment and writes would never resume
   * without an operator. So writes are refused once less than reserveBytes is free, flushes may
   * use the reserve, and a compaction - which needs room for all its output before its inputs go -
   * starts only if it leaves the reserve whole.
   *
   * Free space is read (statvfs, through the Vfs) when the estimate - the last reading less the
   * log bytes admitted since - would fall under the reserve, at most every PROBE_NANOS; and every
   * REFRESH_NANOS in any case, to see what other processes and our own deletions did.
   */

  /** The least time between two readings of the free space while writes are refused. */
  static final long PROBE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  /** The longest an estimate is trusted while far above the reserve. */
  static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

  private static final System.Logger LOG = System.getLogger(DiskSpace.class.getName());

  private final Env env;
  private final Vfs vfs;
  private final Path directory;
  private final long reserveBytes;
  private long freeAtProbe = Long.MAX_VALUE; // guarded by this
  private long admittedSinceProbe; // guarded by this
  private long probeNanos; // guarded by this
  private @Nullable String refusal; // guarded by this: why writes are refused now, or null

  DiskSpace(Env env, Path directory, long reserveBytes) {
    this.env = env;
    this.vfs = env.vfs();
    this.probeNanos = env.nanoTime() - REFRESH_NANOS; // the first admission reads the disk
    this.directory = directory;
    this.reserveBytes = reserveBytes;
  }

  /** True if {@code e} says the disk (or the user's quota) is full: ENOSPC or EDQUOT. */
  static boolean isNoSpace(IOException e) {
    String message = e.getMessage();
    return message != null
        && (message.contains("No space left on device") || message.contains("Disk quota exceeded"));
  }

  /**
   * Admits a write group of {@code logBytes} to the log, or refuses it, having written nothing.
   *
   * @throws DiskFullException if less than the reserve would be left free
   */
  synchronized void admitWrite(long logBytes) {
    long now = env.nanoTime();
    boolean low = freeAtProbe - admittedSinceProbe - logBytes < reserveBytes;
    boolean probed = false;
    if (now - probeNanos >= REFRESH_NANOS || (low && now - probeNanos >= PROBE_NANOS)) {
      probe(now);
      probed = true;
      low = freeAtProbe - logBytes < reserveBytes;
    }
    if (low) {
      // A fresh reading says why; without one, a refusal already known (a failed append) stands.
      if (probed || refusal == null) {
        refuse("only " + Math.max(0, freeAtProbe - admittedSinceProbe) + " bytes are free on the"
            + " disk of " + directory + ", under the reserve of " + reserveBytes + " kept for flushes");
      }
      throw refused();
    }
    if (refusal != null) {
      LOG.log(Level.INFO, directory + ": the disk has room again (" + freeAtProbe
          + " bytes free): writes resume");
      refusal = null;
    }
    admittedSinceProbe += logBytes;
  }

  /**
   * Records that an append to {@code file} failed for want of space (its bytes taken back) and
   * returns what the writers get: writes are refused until a reading shows room again.
   */
  synchronized DiskFullException full(Object file, IOException cause) {
    refuse("the disk of " + directory + " is full (appending to " + file + ": " + cause.getMessage() + ")");
    // Treat the disk as full until the next reading, at most PROBE_NANOS from now.
    freeAtProbe = 0;
    admittedSinceProbe = 0;
    probeNanos = env.nanoTime();
    return refused();
  }

  /**
   * Records that a flush found the disk full: the disk counts as full until the next reading, at
   * most {@link #PROBE_NANOS} from now, so {@link #hasRoomForFlush} says no until a reading says
   * otherwise.
   */
  synchronized void flushFoundFull() {
    freeAtProbe = 0;
    admittedSinceProbe = 0;
    probeNanos = env.nanoTime();
  }

  /**
   * Records that a flush failed for want of space while writers would wait for it, and returns
   * what they get instead: writes are refused until one is admitted again.
   */
  synchronized DiskFullException flushFull(IOException cause) {
    refuse("the disk of " + directory + " is full (a flush found no room: " + cause.getMessage()
        + ") and writes wait for flushes");
    return refused();
  }

  /**
   * Records that opening could not write {@code undone} (its new manifest, its new log segment)
   * for want of space: writes are refused until {@link PendingStart} has written them.
   */
  synchronized void openingFull(String undone, IOException cause) {
    refuse("the disk of " + directory + " is full: opening could not write " + undone + " ("
        + cause.getMessage() + ")");
  }

  /** What a write gets while opening's writes wait for room (see {@link #openingFull}). */
  synchronized DiskFullException refusedUntilOpened() {
    return refused();
  }

  /**
   * True if a fresh enough reading (at most {@link #PROBE_NANOS} old) shows more than the reserve
   * free, the room a flush needs (see the reserve above): may a flush that found the disk full
   * try again. More than, not as much as: with a reserve of 0, a disk counted as full
   * ({@link #flushFoundFull}) must not read as room, or a writer would retry the flush without end.
   */
  synchronized boolean hasRoomForFlush() {
    long now = env.nanoTime();
    if (now - probeNanos >= PROBE_NANOS) probe(now);
    return freeAtProbe - admittedSinceProbe > reserveBytes;
  }

  /** True if {@code bytes} more can be written and leave the reserve free: may a compaction start. */
  synchronized boolean leavesReserve(long bytes) {
    long now = env.nanoTime();
    if (now - probeNanos >= PROBE_NANOS) probe(now);
    return freeAtProbe - admittedSinceProbe - bytes >= reserveBytes;
  }

  /**
   * The bytes free for this process on the store's file system now (a statfs; not the estimate
   * the write path keeps), or -1 if they cannot be read. For stats, not for the write path.
   */
  long freeBytesNow() {
    try {
      return vfs.usableSpace(directory);
    } catch (IOException e) {
      return -1;
    }
  }

  long reserveBytes() {
    return reserveBytes;
  }

  /** Why writes are refused now, or null while they are taken. */
  synchronized @Nullable String refusal() {
    return refusal;
  }

  private void probe(long now) {
    try {
      freeAtProbe = vfs.usableSpace(directory);
    } catch (IOException e) {
      // Not knowing is no reason to refuse writes: a truly full disk fails the append itself.
      LOG.log(Level.WARNING, "reading the free space of " + directory + " failed: " + e);
      freeAtProbe = Long.MAX_VALUE;
    }
    admittedSinceProbe = 0;
    probeNanos = now;
  }

  private void refuse(String reason) {
    if (refusal == null) {
      LOG.log(Level.WARNING, reason + ": writes are refused until space is freed");
    }
    refusal = reason;
  }

  private DiskFullException refused() {
    return new DiskFullException(refusal + "; nothing was written, retry once space is freed");
  }
}
