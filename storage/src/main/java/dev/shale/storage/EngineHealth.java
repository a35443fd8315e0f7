package dev.shale.storage;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Whether an engine serves fully, and if not, why: what an operator reads in a status probe. A
 * healthy engine takes writes and knows of no damaged file; a degraded one still serves what it
 * can (reads, and writes unless they are refused) and says what is wrong and what to do.
 *
 * @param writeRefusal why writes are refused now (a full disk, an earlier failed fsync), or null
 *     while they are taken
 * @param refusalClearsByItself true when the refusal ends without an operator (the disk has room
 *     again), false when it lasts until a restart; false when writes are taken
 * @param damage files found damaged that the engine serves around, oldest report first
 */
public record EngineHealth(@Nullable String writeRefusal, boolean refusalClearsByItself, List<Damage> damage) {
  /** Healthy: writes taken, no damage known. */
  public static final EngineHealth HEALTHY = new EngineHealth(null, false, List.of());

  /**
   * One damaged file the engine serves around.
   *
   * @param file the damaged file
   * @param problem what is wrong with it, in one line (where in the file, which check failed)
   * @param remedy what the engine does about it and what an operator can do, in one line
   * @param dropped for damage opening accepted by dropping bytes from the file (a log tail that is
   *     not one record cut short by a crash: docs/format.md, "Write-ahead log"), where and how
   *     many; null for damage served around in place
   */
  public record Damage(Path file, String problem, String remedy, @Nullable DroppedBytes dropped) {
    public Damage {
      Objects.requireNonNull(file, "file");
      Objects.requireNonNull(problem, "problem");
      Objects.requireNonNull(remedy, "remedy");
    }

    /** Damage served around in place: nothing dropped. */
    public Damage(Path file, String problem, String remedy) {
      this(file, problem, remedy, null);
    }
  }

  /**
   * Bytes opening dropped from a file, and the records in them with it.
   *
   * @param offset where the dropped bytes start in the file
   * @param bytes how many were dropped (to the file's end)
   */
  public record DroppedBytes(long offset, long bytes) {}

  public EngineHealth {
    damage = List.copyOf(damage);
  }

  /** The bytes of log records dropped at open as accepted damage, all files together. */
  public long droppedLogBytes() {
    long bytes = 0;
    for (Damage d : damage) {
      DroppedBytes dropped = d.dropped();
      if (dropped != null) bytes += dropped.bytes();
    }
    return bytes;
  }

  /** True when writes are refused or a file is damaged. */
  public boolean isDegraded() {
    return writeRefusal != null || !damage.isEmpty();
  }
}
