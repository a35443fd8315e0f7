package dev.shale.storage;

import org.jspecify.annotations.Nullable;

/**
 * What {@link Engine#tryRead} did: read the key ({@code done}; {@code record} null when the store
 * has no record of it), or nothing, because the read would have waited for the disk
 * ({@link #WOULD_WAIT}). A record read is closed by the caller, as {@link Engine#read}'s are.
 */
public record ReadAttempt(boolean done, @Nullable ReadRecord record) {
  /** Nothing read: the read needs a block from the disk. */
  public static final ReadAttempt WOULD_WAIT = new ReadAttempt(false, null);

  private static final ReadAttempt NO_RECORD = new ReadAttempt(true, null);

  public ReadAttempt {
    if (!done && record != null) throw new IllegalArgumentException("a read not done has no record");
  }

  /** A read done: {@code record}, or null for a key the store has no record of. */
  public static ReadAttempt of(@Nullable ReadRecord record) {
    return record == null ? NO_RECORD : new ReadAttempt(true, record);
  }
}
