package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The release tarball of this build, made once per test JVM by launcher/make-release.sh (what
 * {@code ./shale dist} runs) from the jar and lib/ that {@code package} made (the release tests
 * run in {@code integration-test}, app/pom.xml), and what the tests need to use it as an operator
 * would: a tree unpacked from it, and a host's environment without a JDK or Maven.
 */
final class ReleaseTarball {
  private static final Duration BUILD = Duration.ofMinutes(5); // jdeps and jlink on a busy machine
  private static final Duration COMMAND = Duration.ofMinutes(1);

  private static @Nullable Path built; // null until the first test asks

  private ReleaseTarball() {}

  /** The tarball, built on the first call (a minute or so: jlink). */
  static synchronized Path path() {
    if (built == null) built = build();
    return built;
  }

  private static Path build() {
    Path work = Path.of(property("shale.release.work"));
    try {
      TestCluster.deleteTree(work);
      Files.createDirectories(work);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Path log = work.resolve("make-release.log");
    Result made = run(List.of("bash", sourceRoot().resolve("launcher/make-release.sh").toString(),
        "--out", work.toString(), "--jdk", System.getProperty("java.home"),
        "--app-jar", property("shale.app.jar"), "--lib", property("shale.app.lib")), null, log, BUILD);
    assertThat(made.status()).as("make-release.sh's exit status; it printed:\n%s", made.output()).isZero();
    List<String> lines = made.output().lines().toList();
    Path tarball = Path.of(lines.getLast());
    assertThat(tarball).as("the last line make-release.sh printed").isRegularFile().hasParent(work);
    System.out.println("ReleaseTarball: built " + tarball + " (" + size(tarball) + " bytes)");
    return tarball;
  }

  /** The repository's root, whose launcher/ and .git the release is made from. */
  static Path sourceRoot() {
    return Path.of(property("shale.source.root")).toAbsolutePath().normalize();
  }

  /** Unpacks the tarball into {@code dir} (created) and returns the release's tree, {@code dir/shale-<version>}. */
  static Path unpack(Path dir) {
    Path tarball = path();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Result unpacked = run(List.of("tar", "-xzf", tarball.toString(), "-C", dir.toString()), null, dir.resolve("tar.log"), COMMAND);
    assertThat(unpacked.status()).as("tar -x: %s", unpacked.output()).isZero();
    String name = tarball.getFileName().toString();
    return dir.resolve(name.substring(0, name.length() - ".tar.gz".length()));
  }

  /**
   * The environment of a host that has no JDK and no Maven: {@code PATH} is a directory holding
   * bash alone (the release's launcher needs nothing else), no {@code JAVA_HOME}, and {@code
   * LANG=C.UTF-8}.
   */
  static synchronized Map<String, String> hostWithoutJdk() {
    // Beside the tarball, not in a test's @TempDir (which would warn as it deletes a link out of it).
    Path tools = path().resolveSibling("host-path");
    try {
      Files.createDirectories(tools);
      Path bash = tools.resolve("bash");
      if (!Files.exists(bash, LinkOption.NOFOLLOW_LINKS)) Files.createSymbolicLink(bash, Path.of("/bin/bash").toRealPath());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.of("PATH", tools.toString(), "LANG", "C.UTF-8", "HOME", tools.toString());
  }

  /** What a finished command printed (standard output and error together, in order) and its exit status. */
  record Result(int status, String output) {}

  /**
   * Runs {@code command} to its end with {@code environment} (null: this JVM's), its output in
   * {@code log}; kills it by its PID if it takes longer than {@code timeout}, and fails.
   */
  static Result run(List<String> command, @Nullable Map<String, String> environment, Path log, Duration timeout) {
    ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    if (environment != null) {
      builder.environment().clear();
      builder.environment().putAll(environment);
    }
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    }
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError(command + " still running after " + timeout + ":\n" + read(log));
      }
      return new Result(process.exitValue(), read(log));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while running " + command, e);
    } finally {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly(); // by its PID; a no-op once it has exited
    }
  }

  private static String read(Path log) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e + ")";
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null) {
      throw new IllegalStateException("-D" + name + " is unset: the release tests run in Maven's integration-test phase"
          + " (app/pom.xml), e.g. mvn -pl app -am verify -Dtest=ReleaseNodeTest");
    }
    return value;
  }
}
