package dev.shale.storage;

import java.util.Iterator;

/**
 * Records in key order from {@link Engine#scan}. Lazy: it reads as it goes, holding a bounded
 * amount of memory whatever the size of the range. It pins the files it reads until closed, so
 * close it as soon as it is no longer needed (also when abandoning it half way); running out
 * releases them too. After the engine is closed, {@link #hasNext} throws {@link StorageException}
 * (once: the iterator releases its files then). Not thread safe: one thread at a time.
 */
public interface EntryIterator extends Iterator<Entry>, AutoCloseable {
  /** Releases the files this iterator pins. Idempotent; {@link #hasNext} is false afterwards. */
  @Override
  void close();
}
