package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release tarball (launcher/make-release.sh, what {@code ./shale dist} runs), used as an
 * operator would on a host with neither a JDK nor Maven: unpacked anywhere, its {@code bin/shale}
 * names the version and commit and runs a node that stores and serves values. Runs after
 * {@code package} (tag "release", app/pom.xml).
 */
@Tag("release")
class ReleaseNodeTest {
  private static final Duration COMMAND = Duration.ofMinutes(1);
  private static final Pattern TARBALL = Pattern.compile("shale-(\\d+\\.\\d+\\.\\d+-([0-9a-f]{7})(-dirty)?)\\.tar\\.gz");
  private static final Pattern LISTED = Pattern.compile("(\\S+) (\\d+)/(\\d+) +\\d+ (\\S+ \\S+) (.+)");

  @Test
  void aNodeRunsFromTheUnpackedReleaseOnAHostWithoutAJdkOrMaven(@TempDir Path tmp) throws IOException {
    // A directory name with a space: the launcher runs from wherever the tree was unpacked.
    Path tree = ReleaseTarball.unpack(tmp.resolve("opt/shale release"));
    Map<String, String> host = ReleaseTarball.hostWithoutJdk();
    ReleaseTarball.Result which = ReleaseTarball.run(List.of("/bin/bash", "-c", "command -v java || command -v mvn || command -v javac"),
        host, tmp.resolve("which.log"), COMMAND);
    assertThat(which.status()).as("java, javac or mvn on the host's PATH: %s", which.output()).isNotZero();
    assertThat(tree.resolve("runtime/bin/javac")).as("the runtime is no JDK").doesNotExist();

    int port = FreePort.find();
    Path data = tmp.resolve("data");
    try (NodeProcess node = NodeProcess.startExecutable(
        List.of(tree.resolve("bin/shale").toString(), "server", "--port", Integer.toString(port), "--data", data.toString()),
        host, "127.0.0.1", port, tmp)) {
      node.awaitReady(TestCluster.READY);
      EntityClient client = new EntityClient(node.baseUrl());
      assertThat(client.put("greeting", "hello".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
      EntityClient.Reply read = client.get("greeting");
      assertThat(read.status()).isEqualTo(200);
      assertThat(read.text()).isEqualTo("hello");
      assertThat(TestCluster.statusNumber(node.baseUrl(), "pid")).as("the PID we hold is the node's").isEqualTo(node.pid());
      // The runtime has what Netty's native transport needs (JNI, the jar's .so extracted).
      assertThat(node.log()).contains("transport epoll");
      assertThat(node.terminate(TestCluster.STOP)).as("exit status after SIGTERM\n%s", node.log()).isZero();
      assertThat(node.log()).contains("shale " + versionOf(ReleaseTarball.path()) + " serving");
    }
  }

  @Test
  void theReleaseNamesItsVersionAndCommitAsTheTarballDoesWithoutTerminalCodes(@TempDir Path tmp) {
    Path tarball = ReleaseTarball.path();
    Matcher name = TARBALL.matcher(tarball.getFileName().toString());
    assertThat(name.matches()).as("tarball name %s", tarball.getFileName()).isTrue();
    String head = git("rev-parse", "HEAD");
    assertThat(name.group(2)).as("the version's commit").isEqualTo(head.substring(0, 7));

    Path tree = ReleaseTarball.unpack(tmp.resolve("unpacked"));
    ReleaseTarball.Result version = ReleaseTarball.run(List.of(tree.resolve("bin/shale").toString(), "--version"),
        ReleaseTarball.hostWithoutJdk(), tmp.resolve("version.log"), COMMAND);
    assertThat(version.status()).as(version.output()).isZero();
    String dirty = name.group(3) != null ? ", with uncommitted changes" : "";
    assertThat(version.output()).isEqualTo("shale " + name.group(1) + "\ncommit " + head + dirty + "\n");
  }

  @Test
  void theCheckoutsLauncherNamesTheSameVersionAndCommit(@TempDir Path tmp) {
    // The launcher finds the jar this build packaged: it builds nothing while the sources are older.
    ReleaseTarball.Result version = ReleaseTarball.run(List.of(ReleaseTarball.sourceRoot().resolve("shale").toString(), "--version"),
        null, tmp.resolve("version.log"), COMMAND);
    assertThat(version.status()).as(version.output()).isZero();
    String head = git("rev-parse", "HEAD");
    assertThat(version.output()).doesNotContain("\u001b")
        .matches("shale \\d+\\.\\d+\\.\\d+-" + head.substring(0, 7) + "(-dirty)?\ncommit " + head + "(, with uncommitted changes)?\n");
  }

  /** Same bytes from the same inputs: sorted entries, owned by 0:0, every one dated the commit's time. */
  @Test
  void theTarballsEntriesAreOwnedByRootAndDatedTheCommitsTime(@TempDir Path tmp) {
    Path tarball = ReleaseTarball.path();
    ReleaseTarball.Result listing = ReleaseTarball.run(List.of("tar", "--list", "--verbose", "--numeric-owner", "--full-time",
        "--utc", "-zf", tarball.toString()), null, tmp.resolve("list.log"), COMMAND);
    assertThat(listing.status()).as(listing.output()).isZero();
    String commitTime = git("log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%d %H:%M:%S", "HEAD");
    List<String> lines = listing.output().lines().toList();
    assertThat(lines).hasSizeGreaterThan(50);
    String top = versionOf(tarball);
    for (String line : lines) {
      Matcher entry = LISTED.matcher(line);
      assertThat(entry.matches()).as("listing line %s", line).isTrue();
      assertThat(entry.group(2) + "/" + entry.group(3)).as("owner of %s", entry.group(5)).isEqualTo("0/0");
      assertThat(entry.group(4)).as("mtime of %s", entry.group(5)).isEqualTo(commitTime);
      assertThat(entry.group(5)).startsWith("shale-" + top + "/");
    }
    assertThat(lines).anyMatch(l -> l.endsWith("/bin/shale")).anyMatch(l -> l.endsWith("/lib/shale-app.jar"))
        .anyMatch(l -> l.endsWith("/runtime/bin/java")).anyMatch(l -> l.endsWith("/deploy/systemd/shale.service"));
  }

  /** The checks deploy/check.sh can make here: systemd-analyze verify of the unit against the unpacked release, kubeconform. */
  @Test
  void theDeployFilesPassTheChecksThisMachineCanMake(@TempDir Path tmp) {
    Path tree = ReleaseTarball.unpack(tmp.resolve("opt"));
    ReleaseTarball.Result checked = ReleaseTarball.run(List.of("bash", tree.resolve("deploy/check.sh").toString(), "--release", tree.toString()),
        null, tmp.resolve("check.log"), COMMAND);
    System.out.println("ReleaseNodeTest: deploy/check.sh:\n" + checked.output());
    assertThat(checked.status()).as(checked.output()).isZero();
    assertThat(checked.output()).containsPattern("(?m)^systemd-analyze verify: (ok|skipped \\(no systemd-analyze\\))$");
  }

  /** The version in the tarball's name: shale-{@code <version>}.tar.gz. */
  static String versionOf(Path tarball) {
    Matcher name = TARBALL.matcher(tarball.getFileName().toString());
    if (!name.matches()) throw new AssertionError("not a release's name: " + tarball.getFileName());
    return name.group(1);
  }

  private static String git(String... args) {
    List<String> command = new ArrayList<>(List.of("git", "-C", ReleaseTarball.sourceRoot().toString()));
    command.addAll(List.of(args));
    try {
      Path log = Files.createTempFile("git", ".log");
      try {
        ReleaseTarball.Result result = ReleaseTarball.run(command, Map.of("PATH", System.getenv("PATH"), "TZ", "UTC"), log, COMMAND);
        assertThat(result.status()).as("%s: %s", command, result.output()).isZero();
        return result.output().trim();
      } finally {
        Files.delete(log);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
