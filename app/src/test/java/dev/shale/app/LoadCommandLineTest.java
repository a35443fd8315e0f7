package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.HintLimits;
import dev.shale.server.ServerOptions;
import dev.shale.storage.EngineOptions;
import dev.shale.testkit.FreePort;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The load tools' command lines: bad input is a usage error (exit 2) naming the option. */
class LoadCommandLineTest {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "load --url http://127.0.0.1:1 --rate 0                       | --rate must be a positive number",
      "load --url http://127.0.0.1:1 --rate 10 --connections 0      | --connections must be at least 1",
      "load --url http://127.0.0.1:1 --rate 10 --workload scan      | unknown workload 'scan'; expected one of put|get|get-absent|mixed|delete|range",
      "load --url http://127.0.0.1:1 --rate 10 --duration soon      | 'soon' is not a duration",
      "load --url ftp://127.0.0.1:1 --rate 10                       | must be http://host:port or https://host:port",
      "load --url http://127.0.0.1:1 --rate 10 --distribution pareto | --distribution 'pareto' is not one of [uniform, zipf]",
      "load --url http://127.0.0.1:1 --rate 10 --profile cpu,disk   | unknown profile event 'disk'",
      "load --url http://127.0.0.1:1                                | --rate is required (or --fill N)",
      "load --rate 10                                               | Missing required option: '--url",
      "load --url http://127.0.0.1:1 --fill 0                       | --fill must be at least 1",
      "knee --url http://127.0.0.1:1 --start 0                      | --start must be positive",
      "knee --url http://127.0.0.1:1 --start 100 --max 10           | at most --max",
      "report --url http://127.0.0.1:1 --out /tmp/x --profile gc    | unknown profile event 'gc'",
      "report --out /tmp/x                                          | give --url, --cluster-url or both",
      "report --cluster-url ftp://127.0.0.1:1 --out /tmp/x          | --cluster-url 'ftp://127.0.0.1:1' must be http://host:port or https://host:port",
      "report --url http://127.0.0.1:1 --out /tmp/x --ca-cert ca.pem | --ca-cert, --cert and --key are for an https:// URL",
      "report --url http://127.0.0.1:1 --out /tmp/x --start 9 --max 8 | --start must be at most --max",
  })
  void badOptionIsAUsageErrorNamingIt(String commandLine, String message) {
    assertThat(run(commandLine.trim().split("\\s+"))).isEqualTo(2);
    assertThat(err.toString()).startsWith("shale: ").contains(message);
  }

  @Test
  void unreachableNodeFailsWithOneLineAndExit1() {
    int port = FreePort.find(); // nothing listens there
    assertThat(run("load", "--url", "http://127.0.0.1:" + port, "--rate", "10", "--duration", "1s", "--warmup", "0s"))
        .isEqualTo(1);
    assertThat(err.toString()).startsWith("shale: cannot connect to http://127.0.0.1:" + port);
    assertThat(err.toString().lines().count()).isEqualTo(1);
  }

  /**
   * Issue 36, stumble 13: {@code shale load} printed nothing during its run, and its header came
   * with the results. Every flush of its output is kept: the header is flushed alone, before the
   * run, and a progress line before the results.
   */
  @Test
  void theHeaderAndTheProgressArePrintedWhileTheLoadRuns(@TempDir Path dir) {
    int port = FreePort.find();
    List<String> flushes = new ArrayList<>();
    StringWriter text = new StringWriter();
    Writer flushed = new Writer() {
      @Override
      public void write(char[] chars, int offset, int length) {
        text.write(chars, offset, length);
      }

      @Override
      public void flush() {
        flushes.add(text.toString());
      }

      @Override
      public void close() {}
    };
    try (Node node = Node.startAlone(dir.resolve("data"), EngineOptions.defaults(), ServerOptions.defaults().withPort(port),
        HintLimits.DEFAULT, null)) {
      int status = Main.run(new String[] {"load", "--url", "http://127.0.0.1:" + port, "--rate", "200", "--duration", "6s",
          "--warmup", "0s"}, new PrintWriter(flushed, true), new PrintWriter(err, true));
      assertThat(status).as(err.toString()).isZero();
    }
    assertThat(flushes).as("what was flushed, in order")
        .anySatisfy(f -> assertThat(f).contains("Running ", " test @ http://127.0.0.1:" + port).doesNotContain("Thread Stats"))
        .anySatisfy(f -> assertThat(f).contains("  5 s: measuring, 5 s of 6 s").doesNotContain("Thread Stats"));
    assertThat(text.toString()).contains("Thread Stats", "Requests/sec");
  }

  @Test
  void helpListsTheLoadCommands() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("load", "knee", "report");
  }
}
