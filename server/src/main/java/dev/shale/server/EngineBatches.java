package dev.shale.server;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
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
 * orders them). {@link #close} releases it at once if no pull is running, else right after
 * the running one.
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

  private final Supplier<EntryIterator> open;
  private final Executor threads;
  private final EventExecutor loop;
  private @Nullable EntryIterator iterator; // scan threads only
  private boolean inFlight; // event loop only
  private volatile boolean closed;

  public EngineBatches(Supplier<EntryIterator> open, Executor threads, EventExecutor loop) {
    this.open = open;
    this.threads = threads;
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
      if (iterator == null) iterator = open.get();
      List<Entry> entries = new ArrayList<>();
      long bytes = 0;
      while (bytes < BATCH_BYTES && entries.size() < BATCH_RECORDS && !closed && iterator.hasNext()) {
        Entry entry = iterator.next();
        entries.add(entry);
        bytes += entry.key().length + (entry.value() == null ? 0 : entry.value().length);
      }
      boolean last = !closed && !iterator.hasNext();
      if (last) closeIterator();
      return new Batch(entries, last, null);
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

  private void closeIterator() {
    EntryIterator it = iterator;
    if (it != null) it.close();
  }
}
