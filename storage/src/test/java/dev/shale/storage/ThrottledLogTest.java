package dev.shale.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** One line per distinct failure per interval, the repeats counted on the next line; bounded. */
class ThrottledLogTest {
  private final AtomicLong nanos = new AtomicLong(1_000);
  private final Lines lines = new Lines();
  private final ThrottledLog log = new ThrottledLog(lines, Level.ERROR, 10_000, nanos::get);

  @Test
  void aRepeatedFailureIsLoggedOncePerIntervalWithItsCount() {
    for (int i = 0; i < 2172; i++) log.log("put failed: disk", () -> "put id=k failed: disk");
    assertThat(lines.lines).containsExactly("put id=k failed: disk");

    advanceMillis(9_999);
    log.log("put failed: disk", () -> "put id=k failed: disk");
    assertThat(lines.lines).hasSize(1);
    advanceMillis(1);
    log.log("put failed: disk", () -> "put id=j failed: disk");

    assertThat(lines.lines).containsExactly("put id=k failed: disk",
        "put id=j failed: disk (repeated 2172 times in the last 10 s)");
  }

  @Test
  void distinctFailuresHaveIntervalsOfTheirOwn() {
    log.log("get failed: 000012.sst offset 0", () -> "a");
    log.log("get failed: 000012.sst offset 4096", () -> "b");
    log.log("get failed: 000012.sst offset 0", () -> "a again");
    assertThat(lines.lines).containsExactly("a", "b");
  }

  @Test
  void theNumberOfFailuresTrackedIsBounded() {
    for (int i = 0; i < ThrottledLog.MAX_FAILURES + 500; i++) log.log("failure " + i, () -> "line");
    // Past the bound, new failures share one interval: one more line, not 500.
    assertThat(lines.lines).hasSize(ThrottledLog.MAX_FAILURES + 1);

    advanceMillis(10_000);
    log.log("another failure", () -> "line");
    assertThat(lines.lines.getLast()).as("idle failures were forgotten to make room").isEqualTo("line");
  }

  private void advanceMillis(long millis) {
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
  }

  /** A System.Logger that keeps the messages it is given. */
  private static final class Lines implements System.Logger {
    final List<String> lines = new ArrayList<>();

    @Override
    public String getName() {
      return "test";
    }

    @Override
    public boolean isLoggable(Level level) {
      return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
      lines.add(message);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
      lines.add(format);
    }
  }
}
