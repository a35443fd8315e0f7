package dev.shale.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The search itself, on a model node: stable up to a capacity, unstable (p99 of 1 s) above. */
class KneeSearchTest {
  final StringWriter log = new StringWriter();

  static LoadResult modelRun(double rate, double capacity) {
    LoadSpec spec = new LoadSpec(URI.create("http://127.0.0.1:1"), Workload.PUT, rate, 1, 1, Duration.ofSeconds(30),
        Duration.ofSeconds(15), 100, 1, LoadSpec.KeyDistribution.UNIFORM, LoadSpec.KeyOrder.SEQUENTIAL,
        Duration.ofSeconds(10), 1);
    Histogram h = Recorder.newHistogram();
    h.recordValueWithCount(rate <= capacity ? 500 : 1_000_000, 1000);
    long answered = Math.round(Math.min(rate, capacity) * 30);
    return new LoadResult(spec, h, answered, 0, Duration.ofSeconds(30), Map.of(201, answered),
        new LoadResult.SocketErrors(0, 0, 0, 0), 0, List.of(new long[30]), List.of(), 0);
  }

  KneeSearch.Knee search(double capacity, double start, double max) throws LoadException {
    return new KneeSearch(StableRate.DEFAULT, 0.05, 10)
        .search(rate -> modelRun(rate, capacity), start, max, new PrintWriter(log, true));
  }

  @Test
  void rampsUpThenBisectsToWithinThePrecision() throws LoadException {
    KneeSearch.Knee knee = search(12_345, 1000, 1_000_000);

    assertThat(knee.stableRate()).isBetween(12_345 / 1.05, 12_345.0);
    assertThat(knee.reachedMax()).isFalse();
    assertThat(knee.trials()).extracting(KneeSearch.Trial::target).startsWith(1000.0, 2000.0, 4000.0, 8000.0, 16000.0);
    assertThat(knee.trials()).allMatch(t -> t.stable() == (t.target() <= 12_345));
    assertThat(log.toString()).contains("no (achieved < 99%)");
    assertThat(knee.lowestUnstable()).map(KneeSearch.Trial::target)
        .contains(knee.trials().stream().filter(t -> t.target() > 12_345).mapToDouble(KneeSearch.Trial::target).min().orElseThrow());
  }

  @Test
  void rampsDownWhenTheStartIsAlreadyTooFast() throws LoadException {
    KneeSearch.Knee knee = search(300, 1000, 1_000_000);

    assertThat(knee.trials()).extracting(KneeSearch.Trial::target).startsWith(1000.0, 500.0, 250.0);
    assertThat(knee.stableRate()).isBetween(300 / 1.05, 300.0);
  }

  @Test
  void saysSoWhenTheMaxIsStable() throws LoadException {
    KneeSearch.Knee knee = search(1e9, 1000, 5000);

    assertThat(knee.stableRate()).isEqualTo(5000);
    assertThat(knee.reachedMax()).isTrue();
    assertThat(KneeCommand.verdict(knee)).contains("the knee is higher");
    assertThat(knee.lowestUnstable()).isEmpty();
  }

  @Test
  void noStableRateAtAll() throws LoadException {
    KneeSearch.Knee knee = search(0, 1000, 5000);

    assertThat(knee.stableRate()).isZero();
    assertThat(KneeCommand.verdict(knee)).isEqualTo("no rate tried was stable");
  }

  @Test
  void aRateBehindTheTargetIsNotStableEvenWithALowP99() {
    LoadResult fast = modelRun(1000, 1e9);
    LoadResult shortOfTarget = new LoadResult(fast.spec(), fast.latencyMicros(), 29_000, 0, fast.measured(),
        fast.statuses(), fast.socketErrors(), 0, fast.answersPerSecondByThread(), fast.latencyBySecond(), 0);

    assertThat(StableRate.DEFAULT.isStable(fast)).isTrue();
    assertThat(StableRate.DEFAULT.isStable(shortOfTarget)).isFalse();
    assertThat(StableRate.DEFAULT.reason(shortOfTarget)).isEqualTo("achieved < 99%");
  }
}
