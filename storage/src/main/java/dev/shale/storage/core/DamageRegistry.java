package dev.shale.storage.core;

import dev.shale.storage.EngineHealth.Damage;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The damaged files an engine knows of and serves around (a table with a corrupt block, a table
 * whose filter is unreadable), for {@link dev.shale.storage.Engine#health}. Each distinct
 * (file, problem) is kept and logged once, at ERROR, with its remedy; a file's reports go when the
 * file leaves the store (compacted away or replaced).
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
  synchronized boolean report(Path file, String problem, String remedy) {
    for (Damage known : damage) {
      if (known.file().equals(file) && known.problem().equals(problem)) return false;
    }
    damage.add(new Damage(file, problem, remedy));
    LOG.log(Level.ERROR, file + ": " + problem + "; " + remedy);
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
