package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The modules' one-way dependencies, checked on the sources: storage knows nothing of HTTP or
 * the server, cluster knows nothing of Netty, and the other modules reach storage only through its public API packages
 * {@code dev.shale.storage}, {@code dev.shale.storage.inspect} (the offline tools' read-only view of a stopped store)
 * and {@code dev.shale.storage.uring} (an io_uring for reads, which code that owns a thread, a benchmark or an event
 * loop, drives itself); the other subpackages are the engine's internals.
 */
class ModuleBoundaryTest {
  // Surefire runs with the module's directory as the working directory.
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  // The nullness annotations every module may use: no code, only what NullAway checks.
  private static final String NULLNESS = "org\\.jspecify\\.annotations\\.Nullable;";
  private static final String LIBRARIES = "io\\.airlift\\.compress\\.v3\\.|com\\.github\\.benmanes\\.caffeine\\.";
  private static final Pattern STORAGE_INTERNALS = Pattern.compile(
      "^import\\s+(static\\s+)?dev\\.shale\\.storage\\.(?!inspect\\.|uring\\.)[a-z]\\w*\\.", Pattern.MULTILINE);

  @Test
  void storageDependsOnTheJdkAndItsTwoLibrariesOnly() {
    // JSpecify's @Nullable: annotations for NullAway, no code to run. aircompressor (the block
    // codecs) and Caffeine (the block cache): the table package's, and no one else's.
    assertThat(importsMatching("storage", Pattern.compile(
        // Possessive "?+": otherwise the optional "static " backtracks to nothing, and the
        // lookahead then rejects "static java.nio..." as if "static" were a package.
        "^import\\s+(static\\s+)?+(?!java\\.|javax\\.|dev\\.shale\\.storage|" + NULLNESS + "|" + LIBRARIES + ")",
        Pattern.MULTILINE)))
        .as("imports in storage/src/main from outside the JDK, the engine, JSpecify and its libraries").isEmpty();
    assertThat(importsMatching("storage", Pattern.compile("^import\\s+(static\\s+)?+(" + LIBRARIES + ")", Pattern.MULTILINE)))
        .as("imports of the engine's libraries")
        .isNotEmpty()
        .allMatch(line -> line.startsWith("dev/shale/storage/table/"), "in the table package");
  }

  @Test
  void clusterDependsOnTheJdkAndTheStorageApiOnly() {
    // No Netty, nor anything else outside the JDK: placement and routing rules stay testable
    // without a network stack, and the server is the only module that speaks HTTP.
    assertThat(importsMatching("cluster", Pattern.compile(
        "^import\\s+(static\\s+)?+(?!java\\.|javax\\.|dev\\.shale\\.storage|dev\\.shale\\.cluster|" + NULLNESS + ")",
        Pattern.MULTILINE)))
        .as("imports in cluster/src/main from outside the JDK, the storage API, cluster and JSpecify").isEmpty();
    assertThat(importsMatching("cluster", Pattern.compile("^import\\s+(static\\s+)?io\\.netty", Pattern.MULTILINE)))
        .as("Netty imports in cluster").isEmpty();
  }

  @Test
  void otherModulesUseOnlyTheStorageApi() {
    for (String module : List.of("cluster", "sim", "server", "bench", "app")) {
      assertThat(importsMatching(module, STORAGE_INTERNALS))
          .as("%s imports of storage internals", module).isEmpty();
    }
  }

  @Test
  void theSimulatorRunsStorageAndClusterWithoutTheServer() {
    // What the simulator runs is a node without its Netty adapters: the server module stays out.
    assertThat(importsMatching("sim", Pattern.compile(
        "^import\\s+(static\\s+)?+(?!java\\.|dev\\.shale\\.storage|dev\\.shale\\.cluster|dev\\.shale\\.sim|" + NULLNESS + ")",
        Pattern.MULTILINE)))
        .as("imports in sim/src/main from outside the JDK, the storage API, cluster, sim and JSpecify").isEmpty();
  }

  @Test
  void theLoadGeneratorIsAClientOnly() {
    assertThat(importsMatching("load", Pattern.compile(
        "^import\\s+(static\\s+)?+dev\\.shale\\.(storage|cluster|server)\\.", Pattern.MULTILINE)))
        .as("imports of storage, cluster or server in load/src/main: it must talk to a node over HTTP only").isEmpty();
  }

  /** "file: line" for every line of a module's main sources that matches {@code pattern}. */
  private static List<String> importsMatching(String module, Pattern pattern) {
    Path sources = ROOT.resolve(module).resolve("src/main/java");
    assertThat(sources).as("sources of %s", module).isDirectory();
    try (Stream<Path> files = Files.walk(sources)) {
      return files.filter(f -> f.toString().endsWith(".java"))
          .flatMap(f -> {
            String text = read(f);
            return pattern.matcher(text).results().map(m -> sources.relativize(f) + ": " + lineAt(text, m.start()));
          })
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String lineAt(String text, int offset) {
    int end = text.indexOf('\n', offset);
    return text.substring(offset, end < 0 ? text.length() : end);
  }
}
