package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.bench.EngineBenchConfig;
import dev.shale.bench.EngineChoice;
import dev.shale.bench.ValueKind;
import dev.shale.bench.Workload;
import dev.shale.storage.Compression;
import dev.shale.storage.EngineOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code shale bench engine}: its options, their checks (exit 2), and a tiny run end to end. */
class BenchCommandTest {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  @TempDir Path dir;

  int run(String... args) {
    return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void helpListsTheOptionsAndWorkloads() {
    assertThat(run("bench", "engine", "--help")).isZero();
    assertThat(out.toString()).contains("--engine", "--keys", "--value-size", "--workloads", "--json",
        "--dir", "--threads", "--tombstone-grace", "No effect on RocksDB", "fillseq", "readmissing", "seekrandom", "deleterandom", "scanall");
  }

  @Test
  void benchWithoutABenchmarkIsAUsageError() {
    assertThat(run("bench")).isEqualTo(2);
    assertThat(err.toString()).contains("missing benchmark");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--engine=leveldb --keys=10 --value-size=10     | --engine must be shale, rocksdb or both",
      "--keys=10 --value-size=10                      | Missing required option: '--engine",
      "--engine=both --value-size=10                  | Missing required option: '--keys",
      "--engine=both --keys=0 --value-size=10         | --keys must be in [1, ",
      "--engine=both --keys=ten --value-size=10       | Invalid value for option '--keys'",
      "--engine=both --keys=10 --value-size=0         | --value-size must be in [1, 16777216]",
      "--engine=both --keys=10 --value-size=17m       | --value-size must be in [1, 16777216]",
      "--engine=both --keys=10 --value-size=100g      | --value-size must be at most 16777216",
      "--engine=both --keys=10 --value-size=10 --workloads=fillseq,readsome | unknown workload 'readsome'; known: fillseq,",
      "--engine=both --keys=10 --value-size=10 --threads=0   | --threads must be in [1, 1024]",
      "--engine=both --keys=10 --value-size=10 --reads=0     | --reads must be >= 1",
      "--engine=both --keys=10 --value-size=10 --sync-interval=0 | --sync-interval must be >= 1 ms",
      "--engine=both --keys=10 --value-size=10 --tombstone-grace=-1 | --tombstone-grace must be >= 0 ms: -1",
      "--engine=both --keys=10 --value-size=10 --tombstone-grace=1d | Invalid value for option '--tombstone-grace'",
      "--engine=both --keys=10 --value-size=10 --bogus       | Unknown option: '--bogus'",
  })
  void badOptionsAreUsageErrorsNamingTheOption(String args, String message) {
    String[] all = ("bench engine " + args.trim()).split(" +");
    assertThat(run(all)).isEqualTo(2);
    assertThat(err.toString()).startsWith("shale: ").contains(message).contains("shale bench engine --help");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void optionsMakeTheRunsSettings() {
    EngineBenchConfig config = parse("--engine=RocksDB", "--keys=1000", "--value-size=1k",
        "--workloads=fillrandom,readrandom,readrandom", "--json=r.json", "--dir=/tmp/b", "--threads=4",
        "--seed=9", "--keep-data", "--sync-interval=60000", "--tombstone-grace=0", "--compression=ZSTD",
        "--values=text", "--direct-reads").config();
    assertThat(config).isEqualTo(new EngineBenchConfig(EngineChoice.ROCKSDB, 1000, 1024,
        List.of(Workload.FILLRANDOM, Workload.READRANDOM, Workload.READRANDOM), 1000, 100, 4,
        Path.of("/tmp/b"), Path.of("r.json"), 9, true, 60_000, 0, Compression.ZSTD, ValueKind.TEXT, 0, true));
  }

  @Test
  void defaultsRunEveryWorkloadOnOneThreadUnderBenchData() {
    EngineBenchConfig config = parse("--engine=both", "--keys=50", "--value-size=100").config();
    assertThat(config.workloads()).isEqualTo(Workload.ALL);
    assertThat(config.threads()).isEqualTo(1);
    assertThat(config.directory()).isEqualTo(Path.of("./bench-data"));
    assertThat(config.syncIntervalMillis()).isEqualTo(EngineBenchConfig.DEFAULT_SYNC_INTERVAL_MILLIS);
    assertThat(config.tombstoneGraceMillis()).isEqualTo(EngineOptions.defaults().tombstoneGraceMillis());
    assertThat(config.reads()).isEqualTo(50);
    assertThat(config.seeks()).isEqualTo(5);
    assertThat(config.jsonFile()).isNull();
  }

  @Test
  void tinyRunThroughTheCommandLineWritesItsJson() throws Exception {
    Path json = dir.resolve("report.json");
    int status = run("bench", "engine", "--engine", "both", "--keys", "300", "--value-size", "64",
        "--workloads", "fillseq,readrandom,readmissing", "--dir", dir.resolve("data").toString(),
        "--json", json.toString());

    assertThat(status).as("stderr: %s", err).isZero();
    assertThat(out.toString()).contains("Ratios shale/rocksdb", "readmissing");
    String report = Files.readString(json);
    assertThat(report.strip()).startsWith("[").endsWith("]");
    for (String engine : List.of("shale", "rocksdb")) {
      for (String workload : List.of("fillseq", "readrandom", "readmissing")) {
        assertThat(report).containsPattern("\\{\"engine\": \"" + engine + "\", \"workload\": \"" + workload
            + "\", \"status\": \"ok\".*\"ops_per_sec\": \\d+\\.\\d+, \"p50_us\": \\d+\\.\\d+, "
            + "\"p99_us\": \\d+\\.\\d+, \"p999_us\": \\d+\\.\\d+");
      }
    }
  }

  private BenchEngineCommand parse(String... args) {
    CommandLine root = Main.commandLine(new PrintWriter(out), new PrintWriter(err));
    String[] all = new String[args.length + 2];
    all[0] = "bench";
    all[1] = "engine";
    System.arraycopy(args, 0, all, 2, args.length);
    CommandLine.ParseResult result = root.parseArgs(all);
    return result.subcommand().subcommand().commandSpec().commandLine().getCommand();
  }
}
