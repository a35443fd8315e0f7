package dev.shale.storage.core;

import dev.shale.storage.Env;
import dev.shale.storage.StorageException;
import dev.shale.storage.table.TableMeta;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The engine as the flush thread sees it: hands out frozen memtables, commits each flushed table
 * as a {@link FileSetCommit.Change}, and tells waiting writers when a flush lands.
 */
final class FlushHost implements Flusher.Host {
  private final ReentrantLock lock; // the engine's write lock
  private final Condition frozenAdded; // a memtable was frozen, or the engine closes
  private final Condition flushLanded; // a flush was published, or the engine closes
  private final CurrentView view;
  private final FileSetCommit fileSets;
  private final Backpressure backpressure;
  private final Compactor compactor;
  private final DiskSpace disk;
  private final Env env; // the engine's: awaitRetry's wait runs out on its clock

  private final LongAdder flushes = new LongAdder();
  private final LongAdder flushBytesWritten = new LongAdder();
  private final LongAdder flushFailures = new LongAdder();
  // Set (under the lock) when the disk shows room again after a flush found it full: the flush
  // thread's backoff ends at once rather than after up to Flusher.MAX_RETRY_MILLIS.
  private boolean retryNow;

  FlushHost(ReentrantLock lock, CurrentView view, FileSetCommit fileSets,
      Backpressure backpressure, Compactor compactor, DiskSpace disk, Env env) {
    this.env = env;
    this.disk = disk;
    this.lock = lock;
    this.frozenAdded = lock.newCondition();
    this.flushLanded = lock.newCondition();
    this.view = view;
    this.fileSets = fileSets;
    this.backpressure = backpressure;
    this.compactor = compactor;
  }

  @Override
  public @Nullable FrozenMemtable awaitOldestFrozen() throws InterruptedException {
    lock.lock();
    try {
      while (!view.isClosed()) {
        List<FrozenMemtable> frozen = view.get().frozen();
        if (!frozen.isEmpty()) {
          FrozenMemtable oldest = frozen.getLast();
          // Safe: the current view holds it, and views change under the lock.
          oldest.memtable().retain();
          return oldest;
        }
        frozenAdded.await();
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean commit(FrozenMemtable flushed, SharedTable table) throws IOException {
    return fileSets.commit(new Flush(flushed, table));
  }

  @Override
  public void flushFailed(Exception failure) {
    flushFailures.increment();
    // Until the next reading of the free space, a writer takes the disk for full: it is refused
    // rather than waiting for a retry that would find no room again (WriteQueue).
    if (failure instanceof IOException e && DiskSpace.isNoSpace(e)) disk.flushFoundFull();
    lock.lock(); // Backpressure's state, and the condition stalled writers wait on
    try {
      backpressure.flushFailed(failure);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean awaitRetry(long millis) throws InterruptedException {
    long remaining = TimeUnit.MILLISECONDS.toNanos(millis);
    lock.lock();
    try {
      while (!view.isClosed() && remaining > 0 && !retryNow) remaining = env.awaitNanos(frozenAdded, remaining);
      retryNow = false;
      return !view.isClosed();
    } finally {
      lock.unlock();
    }
  }

  /** A memtable was frozen: the flush thread takes it. The write lock is held. */
  void frozenAdded() {
    frozenAdded.signalAll();
  }

  /**
   * The disk has room again after a flush found it full: a flush waiting out its backoff retries
   * now, so writes resume as soon as the space is there. The write lock is held.
   */
  void retryNow() {
    retryNow = true;
    frozenAdded.signalAll();
  }

  /** Flush attempts that failed since open (each logged, and retried). */
  long flushFailures() {
    return flushFailures.sum();
  }

  /**
   * Waits (the write lock held) until none of {@code toFlush} is in the current view any more,
   * that is each is in a table; throws once the engine closes or refuses writes for good.
   */
  void awaitFlushed(List<FrozenMemtable> toFlush, Supplier<@Nullable StorageException> refusal) {
    while (!view.isClosed() && refusal.get() == null && view.get().frozen().stream().anyMatch(toFlush::contains)) {
      flushLanded.awaitUninterruptibly();
    }
    if (view.isClosed()) throw view.closedException();
    StorageException refused = refusal.get();
    // Refused for good (the log failed, or the flush thread died and no flush will ever land):
    // the caller is told rather than left waiting.
    if (refused != null) throw new StorageException("flush not done: " + refused.getMessage(), refused);
  }

  /**
   * The engine closes, or refuses writes for good (the write lock held): the flush thread and
   * waiters for a flush stop.
   */
  void wakeWaiters() {
    frozenAdded.signalAll();
    flushLanded.signalAll();
  }

  long flushes() {
    return flushes.sum();
  }

  long flushBytesWritten() {
    return flushBytesWritten.sum();
  }

  /** A frozen memtable written to {@code table}: the table joins level 0, the memtable goes. */
  private final class Flush implements FileSetCommit.Change {
    private final FrozenMemtable flushed;
    private final SharedTable table;

    Flush(FrozenMemtable flushed, SharedTable table) {
      this.flushed = flushed;
      this.table = table;
    }

    @Override
    public String kind() {
      return "flush";
    }

    @Override
    public List<TableMeta> tablesAfter(ReadView current) {
      List<TableMeta> tables = new ArrayList<>();
      tables.add(table.meta());
      for (SharedTable t : current.tables()) tables.add(t.meta());
      return tables;
    }

    @Override
    public boolean flushes(FrozenMemtable frozen) {
      return frozen.equals(flushed); // a record: the same memtable and log number
    }

    @Override
    public ReadView viewAfter(ReadView current) {
      return current.withFlushed(flushed, table);
    }

    @Override
    public void published() {
      flushes.increment();
      flushBytesWritten.add(table.sizeBytes());
      backpressure.flushLanded();
      flushLanded.signalAll();
    }

    @Override
    public void installed() {
      compactor.signal();
    }
  }
}
