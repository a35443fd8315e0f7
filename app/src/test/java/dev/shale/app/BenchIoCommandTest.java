package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.bench.io.IoBenchConfig;
import dev.shale.bench.io.IoMode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * {@code shale bench io}: its options, their checks (exit 2) and the settings they make. The
 * benchmark itself runs in the bench module's IoBenchTest.
 */
class BenchIoCommandTest {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void helpListsTheOptions() {
    assertThat(run("bench", "io", "--help")).isZero();
    assertThat(out.toString()).contains("--file", "--size", "--mode", "--threads", "--depth", "--block-size",
        "--warmup", "--duration", "--json", "io_uring");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--size=4g                          | Missing required option: '--file",
      "--file=f --mode=aio                | --mode must be pread, uring or both",
      "--file=f --block-size=1000         | --block-size must be a multiple of 4k",
      "--file=f --size=5000               | --size must be a positive multiple of --block-size",
      "--file=f --depth=0                 | --depth must be 1 to 4096",
      "--file=f --threads=0               | --threads must be 1 to 1024",
      "--file=f --duration=0              | --duration must be positive",
  })
  void badOptionsAreUsageErrorsNamingTheOption(String args, String message) {
    String[] all = ("bench io " + args.trim()).split(" +");
    assertThat(run(all)).isEqualTo(2);
    assertThat(err.toString()).startsWith("shale: ").contains(message);
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void optionsMakeTheRunsSettings() {
    IoBenchConfig config = parse("--file=/data/blocks", "--size=1g", "--mode=uring", "--threads=8", "--depth=32",
        "--block-size=8k", "--warmup=500", "--duration=1000", "--json=io.json", "--seed=3").config();
    assertThat(config).isEqualTo(new IoBenchConfig(Path.of("/data/blocks"), 1L << 30, 8192, List.of(IoMode.URING), 8,
        32, 500, 1000, Path.of("io.json"), 3));
  }

  @Test
  void defaultsCompareSixteenThreadsWithSixteenInFlightOnAFourGigabyteFile() {
    IoBenchConfig config = parse("--file=blocks").config();
    assertThat(config.sizeBytes()).isEqualTo(4L << 30);
    assertThat(config.blockBytes()).isEqualTo(4096);
    assertThat(config.modes()).containsExactly(IoMode.PREAD, IoMode.URING);
    assertThat(config.threads()).isEqualTo(16);
    assertThat(config.depth()).isEqualTo(16);
    assertThat(config.jsonFile()).isNull();
  }

  private BenchIoCommand parse(String... args) {
    CommandLine root = Main.commandLine(new PrintWriter(out), new PrintWriter(err));
    String[] all = new String[args.length + 2];
    all[0] = "bench";
    all[1] = "io";
    System.arraycopy(args, 0, all, 2, args.length);
    CommandLine.ParseResult result = root.parseArgs(all);
    return result.subcommand().subcommand().commandSpec().commandLine().getCommand();
  }
}
