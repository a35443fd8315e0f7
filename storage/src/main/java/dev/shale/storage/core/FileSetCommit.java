package dev.shale.storage.core;

import dev.shale.storage.HybridClock;
import dev.shale.storage.Vfs;
import dev.shale.storage.manifest.Manifest;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.table.TableMeta;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Commits a change of the store's file set (a flush's new table, a compaction's inputs replaced
 * by its outputs): builds the manifest snapshot from the current view, commits it, and publishes
 * the matching view, in that order. The flush and compaction hosts describe their change as a
 * {@link Change}; the sequence and its locking are here, once. Also records each new log segment
 * before writes go to it ({@link #recordNewSegment}), so that every snapshot lists the segments
 * that must be on disk (docs/format.md, "Manifest").
 *
 * <p>Thread safety: {@link #commit} may be called from any thread; commits are serialized.
 */
final class FileSetCommit {
  /*
   * File-set changes. A flush and a compaction each build a manifest snapshot from the current
   * view, commit it and publish the matching view, all under `manifestLock`, so the two threads'
   * commits never interleave (a snapshot built before the other's commit would undo it). The
   * write lock is taken only for the short build and publish steps inside, never for an fsync,
   * and never while waiting for `manifestLock`: writers and readers do not wait for a compaction.
   *
   * Failed commits leave no tables behind. A compaction's retry writes its outputs anew, so kept
   * ones leaked a compaction's worth of disk per attempt (issue 31). A failure before the
   * manifest write leaves no record that could name them, so they go at once. A failure in or
   * after it (an append or fsync that failed may still have reached the disk; an install that
   * failed after a durable record) leaves their fate unknown: an open reading that record needs
   * them. They go once a later snapshot that does not name them is durable, which proves that no
   * open will read the failed one: the newest valid manifest record wins, and a manifest whose
   * append failed is replaced, not appended to (Manifest#commit).
   *
   * Segments. Every snapshot lists the log segments holding writes in no table (`segments`), so
   * that opening can tell a removed one from one never created. A segment joins the list by a
   * record of its own, committed after it is created and before the first write goes to it
   * (recordNewSegment, from the write leader), and leaves it with the commit of its flush. The
   * list lives here, under manifestLock, and not in the view: the leader publishes the switch
   * only after its record, and a flush committing in between must list the new segment too.
   */

  private static final System.Logger LOG = System.getLogger(FileSetCommit.class.getName());

  /** One change of the file set, as a flush or a compaction makes it. */
  interface Change {
    /** Names its crash points: "flush" or "compaction". */
    String kind();

    /** The store's tables once the change is in, from the current view (write lock held). */
    List<TableMeta> tablesAfter(ReadView current);

    /** Whether the change puts {@code frozen}'s records into a table (a flush of it). */
    boolean flushes(FrozenMemtable frozen);

    /** The view to publish in place of {@code current} (write lock held). */
    ReadView viewAfter(ReadView current);

    /** Right after the publish, write lock held. */
    void published();

    /** After the publish, manifest lock held. */
    void installed();

    /**
     * The tables this change wrote that are to go if its commit fails: a compaction's rewritten
     * outputs (its retry writes new ones). None for a flush, whose table the flush thread keeps
     * for its retry (Flusher), nor for a move, whose outputs are its inputs' files.
     */
    default List<SharedTable> discardedOnFailure() {
      return List.of();
    }
  }

  private final ReentrantLock manifestLock = new ReentrantLock(); // taken before the write lock
  private final ReentrantLock lock; // the engine's write lock
  private final CurrentView view;
  private final Manifest manifest;
  private final FileNumbers fileNumbers;
  private final ActiveLog log;
  private final HybridClock clock;
  private final Backpressure backpressure;
  private final Hooks.CrashPoints crashPoints;
  private final Vfs vfs;
  // Guarded by manifestLock: by file number, the tables of failed commits whose manifest record
  // may be durable, until a later durable snapshot settles whether they are named.
  private final Map<Long, Path> fateUnknown = new HashMap<>();
  // Guarded by manifestLock: the segments the last durable snapshot lists, ascending. Invariant:
  // they include every frozen memtable's segment and the active one (each listed by its switch's
  // record before it took a write; unlisted only by the commit of its flush).
  private final TreeSet<Long> segments;
  // Guarded by manifestLock: of those, the ones writes have left, with the size each had then
  // (docs/format.md, "Manifest", sealed_size). Set by the switch that leaves one, dropped with it.
  private final Map<Long, Long> sealedSizes;

  /** @param opened the snapshot opening wrote (or is to write): its segments and their sealed sizes */
  FileSetCommit(Vfs vfs, ReentrantLock lock, CurrentView view, Manifest manifest, FileNumbers fileNumbers,
      ActiveLog log, HybridClock clock, Backpressure backpressure, Hooks.CrashPoints crashPoints,
      ManifestSnapshot opened) {
    this.segments = new TreeSet<>(opened.segments());
    this.sealedSizes = new HashMap<>(opened.sealedSizes());
    this.lock = lock;
    this.view = view;
    this.manifest = manifest;
    this.fileNumbers = fileNumbers;
    this.log = log;
    this.clock = clock;
    this.backpressure = backpressure;
    this.crashPoints = crashPoints;
    this.vfs = vfs;
  }

  /**
   * Commits the snapshot with {@code change} in it, then publishes the matching view. False
   * (nothing committed) if the engine closed first.
   */
  boolean commit(Change change) throws IOException {
    // Taken before `lock`, never while holding it: serializes "build snapshot, commit, publish".
    assert !lock.isHeldByCurrentThread();
    manifestLock.lock();
    try {
      ManifestSnapshot snapshot = prepare(change);
      if (snapshot == null) return false;
      try {
        manifest.commit(snapshot, fileNumbers::allocate);
        listed(snapshot);
        crashPoints.reached(change.kind() + ".afterManifestCommit");
        install(change);
        change.installed();
      } catch (IOException | RuntimeException e) {
        for (SharedTable t : change.discardedOnFailure()) fateUnknown.put(t.fileNumber(), t.path());
        throw e;
      }
      settleFateUnknown(snapshot);
      return true;
    } finally {
      manifestLock.unlock();
    }
  }

  // The snapshot with the change in it, or null if the engine closed. A failure here comes before
  // the manifest is written: no record names the change's new tables, so they go with the last
  // reference to them (the caller's).
  private @Nullable ManifestSnapshot prepare(Change change) {
    try {
      ManifestSnapshot snapshot = snapshotAfter(change);
      if (snapshot != null) crashPoints.reached(change.kind() + ".beforeManifestCommit");
      return snapshot;
    } catch (RuntimeException e) {
      change.discardedOnFailure().forEach(SharedTable::markObsolete);
      throw e;
    }
  }

  /**
   * Records segment {@code number}, just created (header and directory entry durable), in a
   * snapshot listing it after the segments listed already, before the caller directs any write
   * to it (docs/format.md, "Manifest"). False, nothing recorded, if the engine closed first.
   *
   * @throws IOException if the manifest's append or fsync failed: the record may or may not be
   *     durable, so the segment must stay on disk (it holds nothing; the next open deletes it)
   */
  boolean recordNewSegment(long number) throws IOException {
    assert !lock.isHeldByCurrentThread();
    manifestLock.lock();
    try {
      ManifestSnapshot snapshot = snapshotWithSegment(number);
      if (snapshot == null) return false;
      crashPoints.reached("segment.beforeManifestRecord");
      manifest.commit(snapshot, fileNumbers::allocate);
      listed(snapshot);
      crashPoints.reached("segment.afterManifestRecord");
      settleFateUnknown(snapshot);
      return true;
    } finally {
      manifestLock.unlock();
    }
  }

  // `durable` was just committed: the segments it lists are now the ones each later snapshot lists.
  private void listed(ManifestSnapshot durable) {
    segments.clear();
    segments.addAll(durable.segments());
    sealedSizes.clear();
    sealedSizes.putAll(durable.sealedSizes());
  }

  // `durable` was just committed: the tables of earlier failed commits it does not name are in
  // no snapshot an open can read any more. One it does name is live (its commit's record was
  // durable and published after all) and is the view's to delete, as any table.
  private void settleFateUnknown(ManifestSnapshot durable) {
    if (fateUnknown.isEmpty()) return;
    Set<Long> named = new HashSet<>();
    for (TableMeta t : durable.tables()) named.add(t.fileNumber());
    for (Map.Entry<Long, Path> table : fateUnknown.entrySet()) {
      if (named.contains(table.getKey())) continue;
      try {
        if (vfs.delete(table.getValue())) {
          LOG.log(Level.INFO, "deleted " + table.getValue() + ", written by a commit that failed");
        }
      } catch (IOException e) {
        LOG.log(Level.WARNING, "deleting " + table.getValue() + ", written by a commit that"
            + " failed, failed (deleted at next open): " + e);
      }
    }
    fateUnknown.clear();
  }

  // The snapshot with the change in it; null if the engine closed (nothing to commit).
  private @Nullable ManifestSnapshot snapshotAfter(Change change) {
    lock.lock();
    try {
      if (view.isClosed()) return null;
      ReadView current = view.get();
      List<TableMeta> tables = change.tablesAfter(current);
      TreeSet<Long> listed = new TreeSet<>(segments);
      for (FrozenMemtable f : current.frozen()) {
        if (change.flushes(f)) listed.remove(f.logNumber());
      }
      assert listed.contains(log.number()) : "the active segment " + log.number() + " is not listed: " + listed;
      return snapshot(tables, listed, sealedSizes);
    } finally {
      lock.unlock();
    }
  }

  // The snapshot of the current tables with segment `number` listed too; null if the engine closed.
  private @Nullable ManifestSnapshot snapshotWithSegment(long number) {
    lock.lock();
    try {
      if (view.isClosed()) return null;
      List<TableMeta> tables = new ArrayList<>();
      for (SharedTable t : view.get().tables()) tables.add(t.meta());
      TreeSet<Long> listed = new TreeSet<>(segments);
      listed.add(number);
      // The leader switching is the only writer, and it appends nothing to the segment it leaves
      // after this: the size now is the segment's final one.
      Map<Long, Long> sealed = new HashMap<>(sealedSizes);
      sealed.put(log.number(), log.sizeBytes());
      return snapshot(tables, listed, sealed);
    } finally {
      lock.unlock();
    }
  }

  // Write lock held. log_number: the oldest segment still holding records that are in no table.
  // last_version: the clock now, which is past every record of every segment this snapshot no
  // longer lists (each was frozen before its flush built its snapshot), as opening checks
  // (docs/format.md, "Recovery at open", step 1).
  private ManifestSnapshot snapshot(List<TableMeta> tables, SortedSet<Long> listed, Map<Long, Long> sealed) {
    Map<Long, Long> sizes = new HashMap<>(sealed);
    sizes.keySet().retainAll(listed);
    return new ManifestSnapshot(
        fileNumbers.peek(), listed.first(), clock.current(), tables, List.copyOf(listed), sizes);
  }

  private void install(Change change) {
    lock.lock();
    try {
      // Still published while close waits for this thread; once close has let the view go, the
      // manifest names the change and the next open uses it.
      if (view.isReleased()) return;
      view.publish(change.viewAfter(view.get()));
      change.published();
      backpressure.roomMade();
    } finally {
      lock.unlock();
    }
  }
}
