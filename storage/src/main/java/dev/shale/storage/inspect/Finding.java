package dev.shale.storage.inspect;

import java.nio.file.Path;

/**
 * One thing the offline tools found in a store's file: damage (a checksum or a check of opening
 * failed) or a note (something opening accepts or tidies away by itself: a torn append, a leftover
 * file).
 *
 * @param file the file concerned
 * @param offset where in the file, or -1 when it concerns the whole file (a missing file, its name)
 * @param problem what is wrong, in one line, as the engine says it
 * @param damage true for damage (verify exits 1), false for a note
 */
public record Finding(Path file, long offset, String problem, boolean damage) {
  static Finding damage(Path file, long offset, String problem) {
    return new Finding(file, offset, problem, true);
  }

  static Finding note(Path file, long offset, String problem) {
    return new Finding(file, offset, problem, false);
  }

  /** {@code <file>[, offset <n>]: <problem>}. */
  @Override
  public String toString() {
    return file + (offset >= 0 ? ", offset " + offset : "") + ": " + problem;
  }
}
