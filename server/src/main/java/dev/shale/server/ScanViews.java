package dev.shale.server;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many scans hold an engine iterator now, and with it a read view: its memtables and tables
 * (kept from being freed or deleted by later flushes and compactions), a block and a read-ahead
 * window of native memory per table source. A scan whose reader does not keep up lets its
 * iterator go while it waits ({@link EngineBatches#park}), so this counts the scans being read,
 * not the scans open: {@code /v0/status} ({@code "memory"}, {@code "scanViews"}) and
 * {@code /metrics} show it.
 *
 * <p>Thread safe.
 */
public final class ScanViews {
  private final AtomicInteger open = new AtomicInteger();

  void opened() {
    open.incrementAndGet();
  }

  void closed() {
    open.decrementAndGet();
  }

  /** Scans holding an iterator now. */
  public int open() {
    return open.get();
  }
}
