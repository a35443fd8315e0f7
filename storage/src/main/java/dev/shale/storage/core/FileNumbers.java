package dev.shale.storage.core;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The one counter that numbers every file of a store (docs/format.md, "The data directory"), so
 * numbers never repeat and a higher number is a newer file. Thread safe.
 */
final class FileNumbers {
  // Invariant: above every number handed out or found in the directory at open.
  private final AtomicLong next;

  FileNumbers(long first) {
    this.next = new AtomicLong(first);
  }

  /** A number never used before. */
  long allocate() {
    return next.getAndIncrement();
  }

  /** Above every number allocated so far: a manifest's next_file_number. */
  long peek() {
    return next.get();
  }
}
