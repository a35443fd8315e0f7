package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.FreePort;
import java.io.PrintWriter;
import java.io.StringWriter;
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
      "load --url https://127.0.0.1:1 --rate 10                     | must be http://host:port",
      "load --url http://127.0.0.1:1 --rate 10 --distribution pareto | --distribution 'pareto' is not one of [uniform, zipf]",
      "load --url http://127.0.0.1:1 --rate 10 --profile cpu,disk   | unknown profile event 'disk'",
      "load --url http://127.0.0.1:1                                | --rate is required (or --fill N)",
      "load --rate 10                                               | Missing required option: '--url",
      "load --url http://127.0.0.1:1 --fill 0                       | --fill must be at least 1",
      "knee --url http://127.0.0.1:1 --start 0                      | --start must be positive",
      "knee --url http://127.0.0.1:1 --start 100 --max 10           | at most --max",
      "report --url http://127.0.0.1:1 --out /tmp/x --profile gc    | unknown profile event 'gc'",
      "report --out /tmp/x                                          | give --url, --cluster-url or both",
      "report --cluster-url ftp://127.0.0.1:1 --out /tmp/x          | --cluster-url 'ftp://127.0.0.1:1' must be http://host:port",
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

  @Test
  void helpListsTheLoadCommands() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("load", "knee", "report");
  }
}
