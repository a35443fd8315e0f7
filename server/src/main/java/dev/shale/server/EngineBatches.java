package dev.shale.server;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Pulls a scan's records from an engine iterator in batches on the scan threads, and hands each
 * batch to an event loop. One batch at a time: the next is pulled only when the event loop asks
 * for it ({@link #request}), which it does once the client has taken the previous one. So a scan
 * holds one batch in memory between the engine and the socket, whatever its range.
 *
 * <p>The iterator is opened by the first pull and only ever touched by the scan threads, one
 * task at a time (each task is submitted after the previous one handed its batch over, which
 * orders them; a {@link #park} may race a pull, so the iterator is also guarded by a lock).
 * {@link #close} releases it at once if no pull is running, else right after the running one.
 *
 * <p>A scan whose reader does not keep up {@link #park parks}: its iterator is closed while it
 * waits, which lets go of its read view (memtables and tables that later flushes and compactions
 * replaced, which could not be freed or deleted while it held them) and its read-ahead windows.
 * The next pull opens a fresh iterator just after the last key handed over, on the engine's view
 * of then (as RocksDB's and Pebble's iterators are refreshed): every key of the range still comes
 * once and in order, but a parked scan does not read one point in time; it sees the writes made
 * while it waited past its position. A source that cannot resume ({@link Source#once}) never parks.
 *
 * <p>{@link #request} and {@link #close} are called on the event loop only.
 */
public final class EngineBatches {
  /** Bytes of keys and values per batch: enough to fill a socket buffer in one hand-off. */
  static final int BATCH_BYTES = 64 * 1024;
  /** Records per batch at most (many tiny records, or tombstones kept for a cluster scan). */
  static final int BATCH_RECORDS = 1024;

  /**
   * Records pulled in key order; {@code last}: the range is exhausted (the iterator released);
   * {@code failure}: the pull failed (no records then).
   */
  public record Batch(List<Entry> entries, boolean last, @Nullable RuntimeException failure) {}

  /** Opens a scan's iterator. */
  @FunctionalInterface
  public interface Source {
    /** An iterator over the range from its start ({@code after} null), or from just after {@code after}. */
    EntryIterator open(byte @Nullable [] after);

    /** Whether {@link #open} can resume after a key; else the scan never parks. */
    default boolean resumable() {
      return true;
    }

    /** A source that opens once, from the start (a scan whose records are not keyed as the range is). */
    static Source once(Supplier<EntryIterator> open) {
      return new Source() {
        @Override
        public EntryIterator open(byte @Nullable [] after) {
          if (after != null) throw new IllegalStateException("this scan cannot resume");
          return open.get();
        }

        @Override
        public boolean resumable() {
          return false;
        }
      };
    }
  }

  /** The smallest key after {@code key}: where a scan that handed {@code key} over resumes. */
  public static byte[] keyAfter(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }

  private final Source source;
  private final Executor threads;
  private final ScanViews views;
  private final EventExecutor loop;
  private final Object lock = new Object();
  // Invariant: views counts this scan while iterator is not null.
  private @Nullable EntryIterator iterator; // guarded by lock
  private byte @Nullable [] lastKey; // guarded by lock: the last key pulled; a reopened iterator starts after it
  private boolean inFlight; // event loop only
  private volatile boolean closed;

  public EngineBatches(Source source, Executor threads, ScanViews views, EventExecutor loop) {
    this.source = source;
    this.threads = threads;
    this.views = views;
    this.loop = loop;
  }

  /**
   * Pulls the next batch; {@code onBatch} gets it on the event loop, unless {@link #close} came
   * first. At most one request at a time.
   */
  public void request(Consumer<Batch> onBatch) {
    if (closed) return;
    if (inFlight) throw new IllegalStateException("a batch is already being pulled");
    inFlight = true;
    if (!FixedThreads.tryExecute(threads, () -> pull(onBatch))) {
      inFlight = false;
      onBatch.accept(new Batch(List.of(), true, new IllegalStateException("the server is shutting down")));
    }
  }

  /**
   * The scan waits for its reader: lets go of the iterator (on a scan thread) until the next
   * {@link #request}, which reopens it after the last key. Nothing if a pull is in flight (it
   * hands a batch over, and the caller decides again) or the source cannot resume.
   */
  public void park() {
    if (closed || inFlight || !source.resumable()) return;
    if (!FixedThreads.tryExecute(threads, this::closeIterator)) closeIterator(); // shut down: no pull can run
  }

  /** Releases the iterator (now, or after the pull in progress). Idempotent. */
  public void close() {
    if (closed) return;
    closed = true;
    if (!inFlight) closeSoon();
  }

  private void pull(Consumer<Batch> onBatch) {
    Batch batch = closed ? null : next();
    if (batch == null || closed) closeIterator();
    Runnable handOver = () -> {
      inFlight = false;
      if (closed) {
        closeSoon(); // after this pull: no thread is in the iterator now
        return;
      }
      onBatch.accept(batch);
    };
    if (!FixedThreads.tryExecute(loop, handOver)) closeIterator(); // the event loop is gone, and the connection with it
  }

  private Batch next() {
    try {
      synchronized (lock) {
        EntryIterator it = openIterator();
        List<Entry> entries = new ArrayList<>();
        long bytes = 0;
        while (bytes < BATCH_BYTES && entries.size() < BATCH_RECORDS && !closed && it.hasNext()) {
          Entry entry = it.next();
          entries.add(entry);
          bytes += entry.key().length + (entry.value() == null ? 0 : entry.value().length);
        }
        if (!entries.isEmpty()) lastKey = entries.getLast().key();
        boolean last = !closed && !it.hasNext();
        if (last) closeIterator();
        return new Batch(entries, last, null);
      }
    } catch (RuntimeException e) {
      closeIterator();
      return new Batch(List.of(), true, e);
    } catch (Error e) {
      // Out of memory, say: the scan must still end (cut), or its client would wait forever.
      closeIterator();
      return new Batch(List.of(), true, new IllegalStateException("scan failed: " + e, e));
    }
  }

  private void closeSoon() {
    if (!FixedThreads.tryExecute(threads, this::closeIterator)) closeIterator(); // shut down: no pull can run
  }

  // Under lock.
  private EntryIterator openIterator() {
    EntryIterator it = iterator;
    if (it != null) return it;
    it = source.open(lastKey);
    iterator = it;
    views.opened();
    return it;
  }

  private void closeIterator() {
    synchronized (lock) {
      EntryIterator it = iterator;
      if (it == null) return;
      iterator = null;
      views.closed();
      it.close();
    }
  }
}
