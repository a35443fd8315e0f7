package dev.shale.storage.core;

import dev.shale.storage.EngineHealth.Damage;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The damaged files an engine knows of and serves around (a table with a corrupt block, a table
 * whose filter is unreadable, a log tail dropped at open that a crash cannot explain), for
 * {@link dev.shale.storage.Engine#health}. Each distinct (file, problem) is kept and logged once,
 * at ERROR, with its remedy; a table's reports go when the table leaves the store (compacted away
 * or replaced). A dropped log tail's stays until the engine closes, though its segment is deleted
 * once flushed: the records it held are lost all the same.
 *
 * <p>Thread safety: synchronized; called from recovery, reads, flushes and compactions.
 */
final class DamageRegistry {
  /** What happens to a table with a damaged block, and what an operator can do about it. */
  static final String TABLE_REMEDY = "reads of the keys in its damaged blocks fail naming the"
      + " file, the rest is served; compaction sets the table aside and goes on around it;"
      + " restore those keys from another replica or a backup";

  private static final System.Logger LOG = System.getLogger(DamageRegistry.class.getName());

  private final List<Damage> damage = new ArrayList<>(); // guarded by this

  /** Records {@code file}'s damage; true the first time this file and problem are reported. */
  boolean report(Path file, String problem, String remedy) {
    return report(new Damage(file, problem, remedy));
  }

  /** Records {@code reported}; true the first time its file and problem are reported. */
  synchronized boolean report(Damage reported) {
    for (Damage known : damage) {
      if (known.file().equals(reported.file()) && known.problem().equals(reported.problem())) return false;
    }
    damage.add(reported);
    LOG.log(Level.ERROR, reported.file() + ": " + reported.problem() + "; " + reported.remedy());
    return true;
  }

  /** True if any damage of {@code file} is known. */
  synchronized boolean isDamaged(Path file) {
    for (Damage known : damage) {
      if (known.file().equals(file)) return true;
    }
    return false;
  }

  /** Drops the reports of a file that is no longer part of the store. */
  synchronized void forget(Path file) {
    damage.removeIf(known -> known.file().equals(file));
  }

  synchronized List<Damage> list() {
    return List.copyOf(damage);
  }
}
