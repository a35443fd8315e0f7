package dev.shale.storage;

/**
 * The disk of the store has no room for a write, or less than the reserve kept for flushes:
 * nothing was written. Unlike most {@link StorageException}s this one passes by itself: writes
 * are taken again, without a restart, once space is freed (the engine logs when). Reads are
 * served meanwhile.
 */
public final class DiskFullException extends StorageException {
  public DiskFullException(String message) {
    super(message);
  }

  public DiskFullException(String message, Throwable cause) {
    super(message, cause);
  }
}
