package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.server.ServerOptions;
import dev.shale.storage.Compression;
import dev.shale.storage.CpuPriority;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Vfs;
import dev.shale.storage.SyncMode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** Parsing the command line: help, version, usage errors, and the options the node gets. */
class CommandLineTest {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void serverHelpDocumentsEveryOptionWithItsDefault() {
    assertThat(run("server", "--help")).isZero();
    String help = out.toString().replaceAll("\\s+", " "); // undo the wrapping
    CommandLine server = Main.commandLine(new PrintWriter(out), new PrintWriter(err)).getSubcommands().get("server");
    for (OptionSpec option : server.getCommandSpec().options()) {
      // A negatable option shows as --[no-]name.
      assertThat(help).contains(option.negatable() ? "--[no-]" + option.longestName().substring(2) : option.longestName());
      if (option.defaultValue() != null) {
        assertThat(help).as("default of %s", option.longestName()).contains("Default: " + option.defaultValue());
      }
    }
    assertThat(help).contains("--host", "--port", "--data", "--cluster", "--sync", "--sync-interval",
        "--memtable-size", "--max-value-size", "--workers", "--queue-size");
  }

  @Test
  void rootHelpListsTheCommandsAndTheTestSuite() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("server").contains("./shale test");
  }

  @Test
  void versionComesFromTheBuild() {
    assertThat(run("--version")).isZero();
    // This JVM was started without a launcher, so without -Dshale.commit (VersionProviderTest).
    assertThat(out.toString()).matches("shale \\d+\\.\\d+\\.\\d+\\S*\ncommit unknown \\(not started by a launcher\\)\n");
    assertThat(out.toString()).doesNotContain("${");
  }

  // Issue 35: a node anyone on a network can reach serves only with credentials (TLS or API
  // tokens) or when told --insecure; refused before it opens its store or binds its port.
  @Test
  void aNodeOnANetworkAddressWithNeitherTlsNorTokensRefusesToStartNamingInsecure(@TempDir Path dir) {
    assertThat(run("server", "--host", "0.0.0.0", "--port", "0", "--data", dir.resolve("data").toString())).isEqualTo(2);
    assertThat(err.toString()).contains("--host 0.0.0.0 is not a loopback address").contains("--insecure");
    assertThat(err.toString().strip().lines()).as("one line: %s", err).hasSize(1);
    assertThat(dir.resolve("data")).as("nothing was opened").doesNotExist();
  }

  @Test
  void noCommandIsAUsageError() {
    assertThat(run()).isEqualTo(2);
    assertThat(err.toString()).contains("missing command");
  }

  @ParameterizedTest
  @ValueSource(strings = {"--bogus", "--port=http", "--sync=sometimes", "--memtable-size=16 MB", "--workers",
      "--compaction-priority=idle", "--compression=gzip", "--block-cache-size=-1", "--block-cache-size=lots"})
  void badOptionIsAUsageErrorWithExitCode2(String option) {
    assertThat(run("server", option)).isEqualTo(2);
    assertThat(err.toString()).startsWith("shale: ").contains("shale server --help");
  }

  @Test
  void unknownOptionSuggestsTheNearestOne() {
    assertThat(run("server", "--max-value=1m")).isEqualTo(2);
    assertThat(err.toString()).contains("Unknown option: '--max-value=1m'").contains("--max-value-size");
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    ServerCommand command = parse();
    ServerOptions server = command.serverOptions();
    assertThat(server.host()).isEqualTo("127.0.0.1");
    assertThat(server.port()).isEqualTo(8080);
    assertThat(server.maxValueSizeBytes()).isEqualTo(16 << 20);
    assertThat(server.metrics()).as("metrics on").isTrue();
    assertThat(server.inflightBodyBytes()).isZero(); // from the heap, capped:
    assertThat(server.bodyBudgetBytes(256L << 20)).as("a quarter of a small heap").isEqualTo(64L << 20);
    assertThat(server.bodyBudgetBytes(8L << 30)).as("the cap").isEqualTo(256L << 20);
    assertThat(server.bodyBudgetBytes(64L << 20)).as("at least one value's body, held twice").isEqualTo(32L << 20);
    assertThat(server.inflightAnswerBytes()).isZero(); // from the heap:
    assertThat(server.answerBudgetBytes(1L << 30)).isEqualTo(256L << 20);
    assertThat(server.answerBudgetBytes(32L << 20)).as("at least one value").isEqualTo(16L << 20);
    assertThat(command.data).isEqualTo(Path.of("./data"));
    EngineOptions engine = command.engineOptions();
    assertThat(engine.syncMode()).isEqualTo(SyncMode.INTERVAL);
    assertThat(engine.memtableSizeBytes()).isEqualTo(16L << 20);
    assertThat(engine.compactionPriority()).isEqualTo(CpuPriority.LOW);
    assertThat(engine.compression()).isEqualTo(Compression.LZ4);
    assertThat(engine.blockCacheBytes()).isEqualTo(32L << 20);
    assertThat(engine.indexesInBlockCache()).as("filters and indexes on top of the cache").isFalse();
    assertThat(server.maxScans()).isEqualTo(256);
    assertThat(server.memoryBytes()).as("no memory budget").isZero();
    assertThat(command.memory()).isNull();
  }

  @Test
  void directReadsAreOnWithAMemoryBudgetUnlessRefusedAndOffWithoutOneUnlessAsked() {
    assertThat(parse().engineOptions().vfs()).isSameAs(Vfs.real());
    assertThat(parse("--direct-reads").engineOptions().vfs()).isSameAs(Vfs.realDirect());
    ServerCommand buffered = parse("--memory=3g", "--no-direct-reads");
    assertThat(buffered.engineOptions().vfs()).isSameAs(Vfs.real());
    assertThat(buffered.memory().pageCacheBytes()).as("an eighth: gets read through it").isEqualTo((3L << 30) / 8);
  }

  @Test
  void aMemoryBudgetSizesTheBlockCacheWithTheFiltersAndIndexesInItAndTheScans() {
    ServerCommand command = parse("--memory=3g");
    long heap = Runtime.getRuntime().maxMemory(); // the test JVM's: -Xmx1g
    NodeMemory memory = NodeMemory.plan(3L << 30, heap, command.engineOptions().withIndexesInBlockCache(false),
        command.serverOptions().answerBudgetBytes(heap), true);
    assertThat(command.memory()).isEqualTo(memory);
    EngineOptions engine = command.engineOptions();
    assertThat(engine.vfs()).as("gets read past the page cache under a budget").isSameAs(Vfs.realDirect());
    assertThat(memory.pageCacheBytes()).isEqualTo(NodeMemory.MIN_PAGE_CACHE_BYTES);
    assertThat(engine.blockCacheBytes()).isEqualTo(memory.blockCacheBytes());
    assertThat(engine.indexesInBlockCache()).isTrue();
    ServerOptions server = command.serverOptions();
    assertThat(server.maxScans()).isEqualTo(memory.maxScans()).isEqualTo(96);
    assertThat(server.memoryBytes()).isEqualTo(3L << 30);
  }

  @Test
  void aMemoryBudgetThatCannotHoldTheHeapOrGoesWithABlockCacheSizeIsAUsageError() {
    assertThat(run("server", "--memory=1g")).as("the test JVM's 1 GiB heap is all of it").isEqualTo(2);
    assertThat(err.toString()).contains("the heap (").contains("takes more than half of --memory 1024 MiB");
    err.getBuffer().setLength(0);
    assertThat(run("server", "--memory=4g", "--block-cache-size=64m")).isEqualTo(2);
    assertThat(err.toString()).contains("give --memory or --block-cache-size, not both");
    err.getBuffer().setLength(0);
    assertThat(run("server", "--memory=lots")).isEqualTo(2);
    assertThat(err.toString()).contains("invalid size 'lots'");
  }

  @Test
  void optionsReachTheServerAndEngineSettings() {
    ServerCommand command = parse("--host=0.0.0.0", "--port=9000", "--data=/tmp/x", "--sync=ALWAYS",
        "--sync-interval=50", "--memtable-size=1m", "--max-value-size=64k", "--max-inflight-bodies=1g",
        "--max-inflight-answers=2m", "--workers=0", "--queue-size=7", "--io-threads=3", "--max-pipelined=4", "--idle-timeout=1000",
        "--request-timeout=2000", "--shutdown-timeout=3000", "--compaction-priority=NORMAL", "--metrics=false",
        "--compression=zstd", "--block-cache-size=0");
    assertThat(command.serverOptions()).isEqualTo(
        new ServerOptions("0.0.0.0", 9000, 3, 0, 7, 64 << 10, 1L << 30, 2L << 20, 4, 1000, 2000, 3000, 256, 0, false));
    EngineOptions engine = command.engineOptions();
    assertThat(engine.syncMode()).isEqualTo(SyncMode.ALWAYS);
    assertThat(engine.syncIntervalMillis()).isEqualTo(50);
    assertThat(engine.memtableSizeBytes()).isEqualTo(1L << 20);
    assertThat(engine.compactionPriority()).isEqualTo(CpuPriority.NORMAL);
    assertThat(engine.compression()).isEqualTo(Compression.ZSTD);
    assertThat(engine.blockCacheBytes()).isZero();
  }

  @Test
  void anUnknownEnumValueListsTheValues() {
    assertThat(run("server", "--compaction-priority=idle")).isEqualTo(2);
    assertThat(err.toString()).contains("invalid --compaction-priority 'idle': use low or normal");
    err.getBuffer().setLength(0);
    assertThat(run("server", "--compression=gzip")).isEqualTo(2);
    assertThat(err.toString()).contains("invalid --compression 'gzip': use none or lz4 or zstd");
  }

  @Test
  void invalidCombinationNamesTheOptions() {
    assertThat(run("server", "--max-value-size=1m", "--max-inflight-bodies=64k", "--port=0")).isEqualTo(2);
    assertThat(err.toString()).contains("--max-inflight-bodies").contains("--max-value-size");
  }

  @Test
  void anAnswerBudgetBelowOneValueNamesTheOptions() {
    assertThat(run("server", "--max-value-size=1m", "--max-inflight-answers=64k", "--port=0")).isEqualTo(2);
    assertThat(err.toString()).contains("--max-inflight-answers").contains("--max-value-size");
  }

  @Test
  void valueLimitCannotPassTheEnginesLimit() {
    assertThat(run("server", "--max-value-size=257m", "--max-inflight-bodies=1g")).isEqualTo(2);
    assertThat(err.toString()).contains("--max-value-size must be at most 256m");
  }

  @Test
  void tooSmallMemtableIsAUsageError() {
    assertThat(run("server", "--memtable-size=1k")).isEqualTo(2);
    assertThat(err.toString()).contains("--memtable-size");
  }

  @Test
  void clusterOfAnotherNodeIsAUsageErrorBeforeAnythingStarts() {
    assertThat(run("server", "--port=8123", "--cluster=http://127.0.0.1:8124")).isEqualTo(2);
    assertThat(err.toString()).contains("--cluster must name this node");
  }

  @Test
  void aClusterWithoutSecretNeedsTrustedNetwork() {
    assertThat(run("server", "--cluster=http://127.0.0.1:8080,http://127.0.0.1:8081")).isEqualTo(2);
    assertThat(err.toString()).contains("a cluster of 2 nodes needs a secret", "--cluster-secret-file", "--trusted-network");
  }

  @Test
  void aClusterWithASecretOrOnATrustedNetworkIsAccepted() {
    String nodes = "--cluster=http://127.0.0.1:8081,http://127.0.0.1:8080";
    ServerCommand trusted = parse("--port=8080", nodes, "--trusted-network");
    assertThat(trusted.cluster().topology().size()).isEqualTo(2);
    ServerCommand secret = parse("--port=8081", nodes, "--cluster-secret=0123456789abcdef");
    assertThat(secret.cluster().topology().self().port()).isEqualTo(8081);
  }

  @Test
  void theReplicationFactorDefaultsToThreeOrEveryNodeAndIsCheckedAgainstTheCluster() {
    String two = "--cluster=http://127.0.0.1:8081,http://127.0.0.1:8080";
    String four = "--cluster=http://127.0.0.1:8080,http://127.0.0.1:8081,http://127.0.0.1:8082,http://127.0.0.1:8083";
    assertThat(parse("--port=8080", two, "--trusted-network").cluster().replicationFactor()).isEqualTo(2);
    assertThat(parse("--port=8080", four, "--trusted-network").cluster().replicationFactor()).isEqualTo(3);
    assertThat(parse("--port=8080", four, "--trusted-network", "--replication-factor=2").cluster().replicationFactor()).isEqualTo(2);
    assertThat(parse("--port=8080", four, "--trusted-network", "--replication-factor=4").cluster().replicationFactor()).isEqualTo(4);

    assertThat(run("server", "--port=8080", two, "--trusted-network", "--replication-factor=3")).isEqualTo(2);
    assertThat(err.toString()).contains("--replication-factor (3) exceeds the cluster's 2 node(s)");
    assertThat(run("server", "--port=8080", two, "--trusted-network", "--replication-factor=0")).isEqualTo(2);
    assertThat(err.toString()).contains("--replication-factor must be at least 1: 0");
    assertThat(run("server", "--replication-factor=1")).isEqualTo(2);
    assertThat(err.toString()).contains("--replication-factor need --cluster");
    assertThat(run("cluster", "--nodes=2", "--replication-factor=3")).isEqualTo(2);
    assertThat(err.toString()).contains("--replication-factor must be in [1, --nodes 2]: 3");
  }

  @Test
  void theSecretIsReadFromItsFile(@TempDir Path tmp) throws Exception {
    Path file = tmp.resolve("secret");
    SecretFile.write(file, "0123456789abcdef-from-a-file\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(java.nio.file.Files.getPosixFilePermissions(file)).extracting(Object::toString)
        .containsExactlyInAnyOrder("OWNER_READ", "OWNER_WRITE");
    ServerCommand command = parse("--port=8080", "--cluster=http://127.0.0.1:8081,http://127.0.0.1:8080",
        "--cluster-secret-file=" + file);
    assertThat(command.cluster().auth().takesPeers()).isTrue();
  }

  @Test
  void aShortSecretAMissingFileAndTwoSecretsAreUsageErrors(@TempDir Path tmp) {
    String nodes = "--cluster=http://127.0.0.1:8080,http://127.0.0.1:8081";
    assertThat(run("server", nodes, "--cluster-secret=short")).isEqualTo(2);
    assertThat(err.toString()).contains("at least 16 bytes");
    assertThat(run("server", nodes, "--cluster-secret-file=" + tmp.resolve("none"))).isEqualTo(2);
    assertThat(err.toString()).contains("cannot read --cluster-secret-file");
    assertThat(run("server", nodes, "--cluster-secret=0123456789abcdef", "--trusted-network")).isEqualTo(2);
    assertThat(err.toString()).contains("not both");
  }

  @Test
  void duplicateAndMalformedUrlsAreUsageErrors() {
    assertThat(run("server", "--cluster=http://127.0.0.1:8080,http://127.0.0.1:8080", "--trusted-network")).isEqualTo(2);
    assertThat(err.toString()).contains("twice");
    assertThat(run("server", "--cluster=http://127.0.0.1:8080,127.0.0.1:8081", "--trusted-network")).isEqualTo(2);
    assertThat(err.toString()).contains("--cluster: '127.0.0.1:8081' is not");
  }

  @Test
  void joinOptionsAreCheckedBeforeAnythingStarts() {
    assertThat(run("server", "--cluster=http://127.0.0.1:8080", "--join=http://127.0.0.1:8081")).isEqualTo(2);
    assertThat(err.toString()).contains("either --cluster (a new cluster) or --join (a running one)");
    assertThat(run("server", "--join=127.0.0.1:8081")).isEqualTo(2);
    assertThat(err.toString()).contains("--join: '127.0.0.1:8081' is not a URL");
    assertThat(run("server", "--join=http://127.0.0.1:8081", "--raft-port=70000")).isEqualTo(2);
    assertThat(err.toString()).contains("--raft-port must be in [1, 65535]: 70000");
    assertThat(run("server", "--join=http://127.0.0.1:8081")).isEqualTo(2);
    assertThat(err.toString()).contains("needs a secret");
  }

  @Test
  void aSecretWithoutClusterIsAUsageError() {
    assertThat(run("server", "--trusted-network")).isEqualTo(2);
    assertThat(err.toString()).contains("need --cluster");
  }

  @Test
  void clusterNamingThisNodeIsAccepted() {
    ServerCommand command = parse("--host=127.0.0.1", "--port=8123", "--cluster=http://127.0.0.1:8123");
    assertThat(command.cluster().topology().isSingle()).isTrue();
    assertThat(command.cluster).containsExactly("http://127.0.0.1:8123");
  }

  @Test
  void optionNamesReplaceFieldNamesOnlyAsWholeWords() {
    assertThat(ServerCommand.optionNames("inflightBodyBytes (1) must be >= maxValueSizeBytes (2); transport"))
        .isEqualTo("--max-inflight-bodies (1) must be >= --max-value-size (2); transport");
  }

  private ServerCommand parse(String... args) {
    CommandLine root = Main.commandLine(new PrintWriter(out), new PrintWriter(err));
    String[] all = new String[args.length + 1];
    all[0] = "server";
    System.arraycopy(args, 0, all, 1, args.length);
    CommandLine.ParseResult result = root.parseArgs(all);
    return result.subcommand().commandSpec().commandLine().getCommand();
  }
}
