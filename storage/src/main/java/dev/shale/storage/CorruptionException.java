package dev.shale.storage;

import java.nio.file.Path;

/**
 * Stored bytes failed their checksum or do not parse. The data in question is not returned; the
 * rest of the store keeps serving.
 */
public final class CorruptionException extends StorageException {
  private final Path file;
  private final String problem;

  public CorruptionException(Path file, String message) {
    super(file + ": " + message);
    this.file = file;
    this.problem = message;
  }

  public Path file() {
    return file;
  }

  /** What is wrong with {@link #file}, without its name: where, and which check failed. */
  public String problem() {
    return problem;
  }
}
