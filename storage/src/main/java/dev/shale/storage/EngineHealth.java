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
   */
  public record Damage(Path file, String problem, String remedy) {
    public Damage {
      Objects.requireNonNull(file, "file");
      Objects.requireNonNull(problem, "problem");
      Objects.requireNonNull(remedy, "remedy");
    }
  }

  public EngineHealth {
    damage = List.copyOf(damage);
  }

  /** True when writes are refused or a file is damaged. */
  public boolean isDegraded() {
    return writeRefusal != null || !damage.isEmpty();
  }
}
