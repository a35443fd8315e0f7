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
 * the server, and the other modules reach storage only through its public API package
 * {@code dev.shale.storage} (its subpackages are the engine's internals).
 */
class ModuleBoundaryTest {
  // Surefire runs with the module's directory as the working directory.
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern STORAGE_INTERNALS = Pattern.compile(
      "^import\\s+(static\\s+)?dev\\.shale\\.storage\\.[a-z]\\w*\\.", Pattern.MULTILINE);

  @Test
  void storageDependsOnTheJdkOnly() {
    assertThat(importsMatching("storage", Pattern.compile(
        // Possessive "?+": otherwise the optional "static " backtracks to nothing, and the
        // lookahead then rejects "static java.nio..." as if "static" were a package.
        "^import\\s+(static\\s+)?+(?!java\\.|javax\\.|dev\\.shale\\.storage)", Pattern.MULTILINE)))
        .as("imports in storage/src/main from outside the JDK and the engine").isEmpty();
  }

  @Test
  void otherModulesUseOnlyTheStorageApi() {
    for (String module : List.of("server", "bench", "app")) {
      assertThat(importsMatching(module, STORAGE_INTERNALS))
          .as("%s imports of storage internals", module).isEmpty();
    }
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
