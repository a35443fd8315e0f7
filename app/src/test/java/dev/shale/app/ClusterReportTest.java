package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code shale report --cluster-url} against three real node processes: the report has the
 * cluster scenarios, PUT and GET at 2/3 and 1/3, and names the node the load went through. Its
 * rates are not looked at (a benchmark's business): each scenario tries one low rate, briefly.
 */
class ClusterReportTest {
  @Test
  void aReportWithAClusterUrlHasTheClusterScenarios(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 3, List.of()).startAll()) {
      Path out = tmp.resolve("report");
      StringWriter log = new StringWriter();
      StringWriter err = new StringWriter();
      int exit = Main.run(new String[] {
          "report", "--cluster-url", cluster.urls().getFirst(), "--out", out.toString(), "--quick", "--no-nginx",
          "--profile", "", "--duration", "1s", "--warmup", "0s", "--start", "50", "--max", "50", "--max-steps", "0",
          "--keys", "200"}, new PrintWriter(log, true), new PrintWriter(err, true));

      assertThat(exit).as("exit; stderr: %s", err).isZero();
      String report = Files.readString(out.resolve("report.md"));
      assertThat(report).contains(
          "| cluster PUT 1 KB, ack=2 from=3, 64 conn |",
          "| cluster PUT 1 KB, ack=1 from=3, 64 conn |",
          "| cluster GET uniform, ack=2 from=3, 64 conn |",
          "| cluster GET uniform, ack=1 from=3, 64 conn |",
          "| cluster node (the load goes through it) | " + cluster.urls().getFirst());
      assertThat(report).doesNotContain("| node |").contains("The single-node scenarios (run with `--url`)");
      assertThat(log.toString()).contains("filled 200 keys");
    }
  }
}
