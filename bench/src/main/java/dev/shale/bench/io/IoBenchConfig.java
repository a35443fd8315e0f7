package dev.shale.bench.io;

import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The settings of one {@code shale bench io} run.
 *
 * @param file the file read; made (random bytes) or grown when it is smaller than {@code sizeBytes}
 * @param sizeBytes the part of the file read at random, a multiple of {@code blockBytes}
 * @param blockBytes the size of every read, and the alignment of its offset: a multiple of 4 KiB
 * @param modes the modes run, one after the other
 * @param threads the threads of {@link IoMode#PREAD}, each with one read in flight
 * @param depth the reads {@link IoMode#URING}'s one thread keeps in flight
 * @param warmupMillis how long each mode reads before it starts counting
 * @param durationMillis how long each mode counts
 * @param jsonFile where to write the results as JSON too, or null
 * @param seed the seed of the file's bytes and of the offsets read
 */
public record IoBenchConfig(Path file, long sizeBytes, int blockBytes, List<IoMode> modes, int threads, int depth,
    long warmupMillis, long durationMillis, @Nullable Path jsonFile, long seed) {
  /** The alignment of an O_DIRECT read, which every read of this benchmark is. */
  static final int ALIGNMENT = 4096;

  public IoBenchConfig {
    if (blockBytes < ALIGNMENT || blockBytes % ALIGNMENT != 0 || blockBytes > (1 << 20)) {
      throw new IllegalArgumentException("--block-size must be a multiple of 4k, at most 1m: " + blockBytes);
    }
    if (sizeBytes < blockBytes || sizeBytes % blockBytes != 0) {
      throw new IllegalArgumentException("--size must be a positive multiple of --block-size: " + sizeBytes);
    }
    if (modes.isEmpty()) throw new IllegalArgumentException("no --mode");
    if (threads < 1 || threads > 1024) throw new IllegalArgumentException("--threads must be 1 to 1024: " + threads);
    if (depth < 1 || depth > 4096) throw new IllegalArgumentException("--depth must be 1 to 4096: " + depth);
    if (warmupMillis < 0) throw new IllegalArgumentException("negative --warmup: " + warmupMillis);
    if (durationMillis < 1) throw new IllegalArgumentException("--duration must be positive: " + durationMillis);
    modes = List.copyOf(modes);
  }

  /** How many blocks the reads choose from. */
  long blocks() {
    return sizeBytes / blockBytes;
  }
}
