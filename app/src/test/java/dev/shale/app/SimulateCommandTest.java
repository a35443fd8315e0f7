package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SimulateCommandTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private final Level logLevel = Logger.getLogger("").getLevel(); // the command turns the nodes' logs off

  @AfterEach
  void restoreLogging() {
    Logger.getLogger("").setLevel(logLevel);
  }

  @Test
  void aSeedPrintsItsTraceAndExitsZeroWhenItHeld() {
    int status = run("simulate", "--seed", "3");
    assertThat(status).as("stderr: %s; stdout: %s", err, out).isZero();
    assertThat(out.toString().strip()).matches("seed 3 trace [0-9a-f]{16} held \\(\\d+ events, [0-9.]+ s virtual\\)");
  }

  @Test
  void aCampaignPrintsALinePerSeedAndASummary() {
    int status = run("simulate", "--seeds", "2", "--first-seed", "40");
    assertThat(status).as("stderr: %s", err).isZero();
    assertThat(out.toString()).contains("simulating 2 seeds from 40", "seed 40 trace ", "seed 41 trace ")
        .containsPattern("2 seeds, 2 held, 0 failed, in [0-9.]+ s \\([0-9.]+ seeds/s\\)");
  }

  @Test
  void aSeedAndACampaignAtOnceAreAUsageError() {
    assertThat(run("simulate", "--seed", "1", "--seeds", "2")).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("give --seed S or --seeds N");
  }

  private int run(String... args) {
    return Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
  }
}
