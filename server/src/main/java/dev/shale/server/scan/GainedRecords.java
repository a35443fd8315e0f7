package dev.shale.server.scan;

import dev.shale.cluster.handoff.GainedKeys;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The records of an engine scan whose keys a handoff stream carries ({@link GainedKeys}), in
 * the scan's order. A source reads every record of the range and sends those: the filter costs
 * a preference list per key, and saves the network and the receiver the rest.
 *
 * <p>Not thread safe, as the iterator it wraps.
 */
final class GainedRecords implements EntryIterator {
  private final EntryIterator all;
  private final GainedKeys gained;
  private @Nullable Entry next;

  GainedRecords(EntryIterator all, GainedKeys gained) {
    this.all = all;
    this.gained = gained;
  }

  @Override
  public boolean hasNext() {
    while (next == null && all.hasNext()) {
      Entry entry = all.next();
      if (gained.contains(entry.key())) next = entry;
    }
    return next != null;
  }

  @Override
  public Entry next() {
    if (!hasNext()) throw new NoSuchElementException();
    Entry entry = Objects.requireNonNull(next, "hasNext() found it");
    next = null;
    return entry;
  }

  @Override
  public void close() {
    all.close();
  }
}
