package dev.shale.storage;

/** A storage operation failed; the message says what and where, in one line. */
public class StorageException extends RuntimeException {
  public StorageException(String message) {
    super(message);
  }

  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
