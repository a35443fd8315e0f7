package dev.shale.load;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Finds the stable rate (see {@link StableRate}) by search: a geometric ramp from the start rate
 * (doubling while stable, halving while not), then bisection between the highest stable and the
 * lowest unstable rate until they are within {@code precision} of each other. Every rate tried is
 * kept, in the order tried.
 */
public final class KneeSearch {
  /** Ramp steps at most, each way: 2^12 from the start rate is far enough. */
  static final int MAX_RAMP_STEPS = 12;

  /** One rate tried. */
  public record Trial(double target, LoadResult result, boolean stable, String reason) {}

  /** The search's outcome: {@code stableRate} 0 when no rate tried was stable. */
  public record Knee(double stableRate, boolean reachedMax, List<Trial> trials) {
    public List<Trial> byRate() {
      return trials.stream().sorted(Comparator.comparingDouble(Trial::target)).toList();
    }

    /**
     * The trial at the lowest rate above the stable rate that was not stable: where the run's
     * latency second by second shows what broke it (stalls, or a steady climb). Empty if every
     * rate tried above it was stable.
     */
    public java.util.Optional<Trial> lowestUnstable() {
      return trials.stream().filter(t -> !t.stable() && t.target() > stableRate)
          .min(Comparator.comparingDouble(Trial::target));
    }
  }

  /** Runs one trial at a rate (a real run in use; a model in tests of the search itself). */
  public interface Runner {
    LoadResult run(double rate) throws LoadException;
  }

  private final StableRate criterion;
  private final double precision;
  private final int maxBisections;

  public KneeSearch(StableRate criterion, double precision, int maxBisections) {
    this.criterion = criterion;
    this.precision = precision;
    this.maxBisections = maxBisections;
  }

  public Knee search(Runner runner, double start, double max, PrintWriter log) throws LoadException {
    List<Trial> trials = new ArrayList<>();
    double lo = 0; // highest stable rate seen
    double hi = Double.POSITIVE_INFINITY; // lowest unstable rate seen
    double rate = Math.min(start, max);
    for (int step = 0; step < MAX_RAMP_STEPS; step++) {
      Trial t = trial(runner, rate, trials, log);
      if (t.stable) {
        lo = rate;
        if (rate >= max || hi < Double.POSITIVE_INFINITY) break;
        rate = Math.min(rate * 2, max);
      } else {
        hi = rate;
        if (lo > 0 || rate <= 1) break;
        rate = Math.max(1, rate / 2);
      }
    }
    for (int i = 0; i < maxBisections && lo > 0 && hi < Double.POSITIVE_INFINITY && hi / lo > 1 + precision; i++) {
      double mid = Math.rint((lo + hi) / 2);
      if (mid <= lo || mid >= hi) break;
      if (trial(runner, mid, trials, log).stable) lo = mid;
      else hi = mid;
    }
    return new Knee(lo, lo >= max, trials);
  }

  private Trial trial(Runner runner, double rate, List<Trial> trials, PrintWriter log) throws LoadException {
    LoadResult r = runner.run(rate);
    boolean stable = criterion.isStable(r);
    Trial t = new Trial(rate, r, stable, criterion.reason(r));
    trials.add(t);
    log.println(KneeTable.row(t));
    log.flush();
    return t;
  }
}
