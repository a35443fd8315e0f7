package dev.shale.load;

import java.time.Duration;

/**
 * PERFORMANCE.md's definition of a stable run: over the whole measured interval the achieved
 * rate is at least 99% of the target and p99 is at most the bound (10 ms by default), and
 * nothing failed (no socket errors, no 5xx: a node that sheds load with 503s is not keeping up).
 */
public record StableRate(double minAchievedFraction, Duration p99Bound) {
  public static final StableRate DEFAULT = new StableRate(0.99, Duration.ofMillis(10));

  public boolean isStable(LoadResult r) {
    return r.achievedRate() >= minAchievedFraction * r.spec().rate()
        && r.percentileMicros(99.0) <= p99Bound.toNanos() / 1_000
        && r.socketErrors().total() == 0
        && r.statuses().keySet().stream().noneMatch(status -> status >= 500);
  }

  /** Why a run is not stable, in a few words; empty when it is. */
  public String reason(LoadResult r) {
    if (r.socketErrors().total() > 0) return "socket errors";
    if (r.statuses().keySet().stream().anyMatch(status -> status >= 500)) return "5xx answers";
    if (r.achievedRate() < minAchievedFraction * r.spec().rate()) return "achieved < " + Math.round(minAchievedFraction * 100) + "%";
    if (r.percentileMicros(99.0) > p99Bound.toNanos() / 1_000) return "p99 > " + p99Bound.toMillis() + " ms";
    return "";
  }
}
