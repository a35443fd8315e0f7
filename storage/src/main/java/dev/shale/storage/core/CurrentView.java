package dev.shale.storage.core;

import dev.shale.storage.StorageException;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The engine's current {@link ReadView}: the one reads retain, and the one the writer queue, the
 * flush and the compaction replace whole. Also whether the engine is closed, since a closed
 * engine hands out no view.
 *
 * <p>Thread safety: {@link #retain} and {@link #get} take no lock; every change (publish, close,
 * release) happens under the engine's write lock.
 */
final class CurrentView {
  /*
   * Read path. `view` holds an immutable ReadView (active memtable, frozen memtables, tables),
   * replaced whole under the write lock when a memtable is frozen or a flush or compaction lands.
   * A read retains the current view (a reference count, no lock) and searches it; tables are
   * closed only when the last view listing them is released.
   */

  private final Path directory;
  private final ReentrantLock lock; // the engine's write lock
  // Replaced under lock only, so publish's read-then-replace needs no atomic swap; volatile for
  // the lock-free readers.
  private volatile ReadView view;
  private volatile boolean closed; // written under lock
  private boolean released; // guarded by lock: set once close has let the view go

  CurrentView(Path directory, ReentrantLock lock, ReadView first) {
    this.directory = directory;
    this.lock = lock;
    this.view = first;
  }

  /** The current view, not retained: for the lock holder, or for a glance (stats, tests). */
  ReadView get() {
    return view;
  }

  /** The current view, retained: the caller releases it. Throws once the engine is closed. */
  ReadView retain() {
    while (true) {
      if (closed) throw closedException();
      ReadView current = view;
      // Fails only for a view replaced (and released) since the read above: retry on the new.
      if (current.tryRetain()) return current;
    }
  }

  /** The current view, retained; null once the engine is closed (the compaction thread's way). */
  @Nullable ReadView retainUnlessClosed() {
    while (!closed) {
      ReadView current = view;
      if (current.tryRetain()) return current;
    }
    return null;
  }

  /** Replaces the current view by {@code next}, releasing the engine's reference to the old. */
  void publish(ReadView next) {
    assert lock.isHeldByCurrentThread();
    ReadView previous = view;
    view = next;
    previous.release();
  }

  boolean isClosed() {
    return closed;
  }

  /** From now on no view is handed out; reads and writes throw {@link #closedException}. */
  void markClosed() {
    assert lock.isHeldByCurrentThread();
    closed = true;
  }

  /**
   * Whether close has let the view go (under the lock): a flush or compaction whose thread
   * outlived its close deadline must not publish after that.
   */
  boolean isReleased() {
    assert lock.isHeldByCurrentThread();
    return released;
  }

  /** Lets the engine's reference go, at close; nothing is published after this. */
  void releaseAtClose() {
    lock.lock();
    try {
      released = true;
      view.release();
    } finally {
      lock.unlock();
    }
  }

  StorageException closedException() {
    return new StorageException("engine is closed: " + directory);
  }
}
