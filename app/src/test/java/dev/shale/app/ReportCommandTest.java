package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code shale report}'s checks of a node before it loads it. */
class ReportCommandTest {
  @Test
  void aMemoryFactorOfANodeWithoutAMemoryBudgetIsRefusedBeforeAnyLoad(@TempDir Path tmp) {
    try (NodeProcess node = NodeProcess.start(FreePort.find(), tmp.resolve("data"), List.of("-Xmx128m"), List.of())
        .awaitReady(Duration.ofSeconds(60))) {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int status = Main.run(new String[] {"report", "--url", node.baseUrl(), "--out", tmp.resolve("report").toString(),
          "--memory-factor", "3", "--quick", "--no-nginx", "--profile", ""}, new PrintWriter(out, true), new PrintWriter(err, true));
      assertThat(status).isEqualTo(2);
      assertThat(err.toString()).contains("--memory-factor: the node at " + node.baseUrl() + " runs without --memory");
      assertThat(out.toString()).as("no scenario ran").doesNotContain("searching the stable rate");
    }
  }
}
