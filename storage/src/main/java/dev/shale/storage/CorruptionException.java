package dev.shale.storage;

import java.nio.file.Path;

/**
 * Stored bytes failed their checksum or do not parse. The data in question is not returned; the
 * rest of the store keeps serving.
 */
public final class CorruptionException extends StorageException {
  private final Path file;
  private final String detail;

  public CorruptionException(Path file, String message) {
    super(file + ": " + message);
    this.file = file;
    this.detail = message;
  }

  public Path file() {
    return file;
  }

  /** The message without the file's path: what is wrong and where in the file. */
  public String detail() {
    return detail;
  }
}
