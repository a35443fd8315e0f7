package dev.shale.storage;

/**
 * A write was refused because flushing has fallen behind for longer than
 * {@link EngineOptions#writeStallTimeoutMillis()}: nothing was written, and the caller may retry
 * later. The server answers it with 503 and Retry-After.
 */
public final class WriteStallException extends StorageException {
  public WriteStallException(String message) {
    super(message);
  }
}
