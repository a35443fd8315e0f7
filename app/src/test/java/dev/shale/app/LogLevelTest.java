package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log level comes from {@code -Dshale.log.level}: INFO by default, FINE adds debug lines, a typo is a usage error. */
class LogLevelTest {

  @Test
  void debugLinesAppearOnlyWhenAsked(@TempDir Path tmp) {
    String quiet = startAndStop(tmp.resolve("quiet"), List.of("-Xmx64m"));
    String debug = startAndStop(tmp.resolve("debug"), List.of("-Xmx64m", "-D" + Logging.LEVEL_PROPERTY + "=fine"));

    assertThat(quiet).contains(" INFO ").doesNotContain(" DEBUG ");
    assertThat(debug).contains(" INFO ", " DEBUG ");
  }

  /**
   * Ratis logs its transport's configuration and services (gRPC: {@code GrpcConfigKeys},
   * {@code GrpcServicesImpl}), its own configuration and its elections at INFO. Those belong at
   * debug level, not in every member's log.
   */
  @Test
  void theRaftTransportsChannelEventsAreDebugLines(@TempDir Path tmp) {
    int port = TestCluster.nodePort();
    List<String> oneMemberCluster = List.of("--cluster", "http://127.0.0.1:" + port);
    String quiet = startAndStop(port, tmp.resolve("quiet"), List.of("-Xmx128m"), oneMemberCluster);
    String debug = startAndStop(port, tmp.resolve("debug"), List.of("-Xmx128m", "-D" + Logging.LEVEL_PROPERTY + "=fine"),
        oneMemberCluster);

    assertThat(quiet).doesNotContain("GrpcConfigKeys", "GrpcServicesImpl");
    assertThat(debug).contains(" DEBUG GrpcConfigKeys", " DEBUG GrpcServicesImpl");
    // Ratis's own INFO lines (through SLF4J's JUL provider: its configuration, its elections)
    // are debug lines too; no SLF4J warning either way.
    assertThat(quiet).doesNotContain("RaftServerConfigKeys", "SLF4J: ");
    assertThat(debug).contains(" DEBUG RaftServerConfigKeys").doesNotContain("SLF4J: ");
  }

  @Test
  void anUnknownLevelIsAUsageError(@TempDir Path tmp) {
    int port = FreePort.find();
    try (NodeProcess node = NodeProcess.start(port, tmp.resolve("data"),
        List.of("-Xmx64m", "-D" + Logging.LEVEL_PROPERTY + "=LOUD"), List.of())) {
      assertThat(node.awaitExit(Duration.ofSeconds(60))).isEqualTo(Main.USAGE);
      assertThat(node.log()).contains("shale: shale.log.level must be a log level", "LOUD");
    }
  }

  private static String startAndStop(Path dataDir, List<String> jvmOptions) {
    return startAndStop(FreePort.find(), dataDir, jvmOptions, List.of());
  }

  private static String startAndStop(int port, Path dataDir, List<String> jvmOptions, List<String> args) {
    try (NodeProcess node = NodeProcess.start(port, dataDir, jvmOptions, args)) {
      node.awaitReady(Duration.ofSeconds(60));
      assertThat(node.terminate(Duration.ofSeconds(60))).isZero();
      return node.log();
    }
  }
}
