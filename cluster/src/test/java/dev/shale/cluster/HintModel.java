package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the hint store may hold for each target and key ({@link HintWorkload#id}) while its disk
 * fails: the records that surely reached it (adds and removals it acknowledged) and those whose
 * fate is unknown (the call threw: the record may be in the log or not). The store must show the
 * winner among the sure records and any subset of the unknown ones, by the engine's rule: the
 * higher version wins, and a removal wins a tie (docs/format.md, "Hints"). So a removal that
 * surely landed hides its hint for good, while an add that failed after it may still show.
 */
final class HintModel {
  /** A record of a hint key: the hint, or (removal) the tombstone at the removed hint's version. */
  private record Rec(Hint hint, boolean removal) {
    boolean beats(Rec other) {
      return other == null || hint.version() > other.hint.version()
          || (hint.version() == other.hint.version() && removal && !other.removal);
    }

    boolean shows(Hint observed) {
      return removal ? observed == null : hint.equals(observed);
    }
  }

  private final Map<String, Rec> sure = new HashMap<>();
  private final Map<String, List<Rec>> unknown = new HashMap<>();
  private int failed;

  void added(Hint hint) {
    land(new Rec(hint, false));
  }

  void removed(Hint hint) {
    land(new Rec(hint, true));
  }

  void addFailed(Hint hint) {
    fail(new Rec(hint, false));
  }

  void removalFailed(Hint hint) {
    fail(new Rec(hint, true));
  }

  /** Calls that threw so far. */
  int failed() {
    return failed;
  }

  private void land(Rec rec) {
    sure.merge(HintWorkload.id(rec.hint), rec, (old, fresh) -> fresh.beats(old) ? fresh : old);
  }

  private void fail(Rec rec) {
    failed++;
    unknown.computeIfAbsent(HintWorkload.id(rec.hint), k -> new ArrayList<>()).add(rec);
  }

  /** Whether the store may show {@code observed} (null: no hint) for {@code id}. */
  boolean allows(String id, Hint observed) {
    Rec winner = sure.get(id);
    if (winner == null ? observed == null : winner.shows(observed)) return true;
    for (Rec maybe : unknown.getOrDefault(id, List.of())) {
      if (maybe.beats(winner) && maybe.shows(observed)) return true;
    }
    return false;
  }

  /** Asserts that {@code deliverable}, every hint a store would deliver, is allowed. */
  void check(Map<String, Hint> deliverable, String where) {
    Set<String> ids = new HashSet<>(deliverable.keySet());
    ids.addAll(sure.keySet());
    for (String id : ids) {
      Hint observed = deliverable.get(id);
      assertThat(allows(id, observed))
          .as(where + ": " + id + " holds " + observed + ", surely " + sure.get(id))
          .isTrue();
    }
  }
}
