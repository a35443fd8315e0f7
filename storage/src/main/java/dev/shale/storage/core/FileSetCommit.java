package dev.shale.storage.core;

import dev.shale.storage.HybridClock;
import dev.shale.storage.manifest.Manifest;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.table.TableMeta;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Commits a change of the store's file set (a flush's new table, a compaction's inputs replaced
 * by its outputs): builds the manifest snapshot from the current view, commits it, and publishes
 * the matching view, in that order. The flush and compaction hosts describe their change as a
 * {@link Change}; the sequence and its locking are here, once.
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
   */

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

  FileSetCommit(ReentrantLock lock, CurrentView view, Manifest manifest, FileNumbers fileNumbers,
      ActiveLog log, HybridClock clock, Backpressure backpressure, Hooks.CrashPoints crashPoints) {
    this.lock = lock;
    this.view = view;
    this.manifest = manifest;
    this.fileNumbers = fileNumbers;
    this.log = log;
    this.clock = clock;
    this.backpressure = backpressure;
    this.crashPoints = crashPoints;
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
      ManifestSnapshot snapshot = snapshotAfter(change);
      if (snapshot == null) return false;
      crashPoints.reached(change.kind() + ".beforeManifestCommit");
      manifest.commit(snapshot, fileNumbers::allocate);
      crashPoints.reached(change.kind() + ".afterManifestCommit");
      install(change);
      change.installed();
      return true;
    } finally {
      manifestLock.unlock();
    }
  }

  // The snapshot with the change in it; null if the engine closed (nothing to commit).
  private @Nullable ManifestSnapshot snapshotAfter(Change change) {
    lock.lock();
    try {
      if (view.isClosed()) return null;
      ReadView current = view.get();
      List<TableMeta> tables = change.tablesAfter(current);
      // log_number: the oldest segment still holding records that are in no table.
      long logNumber = log.number();
      for (FrozenMemtable f : current.frozen()) {
        if (!change.flushes(f)) logNumber = Math.min(logNumber, f.logNumber());
      }
      return new ManifestSnapshot(fileNumbers.peek(), logNumber, clock.current(), tables);
    } finally {
      lock.unlock();
    }
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
