package dev.shale.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API package {@code dev.shale.storage} depends on the engine only one way: {@code core}
 * implements the API (and provides {@link EngineFactory}), the API names nothing of {@code core},
 * neither by import nor by a qualified name, so the two never form a cycle.
 */
class ApiPackageBoundaryTest {
  // Surefire runs with the module's directory as the working directory.
  private static final Path API_SOURCES = Path.of("src/main/java/dev/shale/storage");
  private static final Pattern CORE = Pattern.compile("dev\\.shale\\.storage\\.core\\b");

  @Test
  void theApiPackageNamesNothingOfCore() throws IOException {
    assertThat(API_SOURCES.resolve("Engine.java")).as("the API's sources").isRegularFile();
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(API_SOURCES)) { // the package only, not its subpackages
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
          Matcher m = CORE.matcher(lines.get(i));
          if (m.find()) found.add(file.getFileName() + ":" + (i + 1) + ": " + lines.get(i).strip());
        }
      }
    }
    assertThat(found).as("lines of the API package that name dev.shale.storage.core").isEmpty();
  }

  @Test
  void engineOpenFindsTheEngineThroughItsFactory(@TempDir Path dir) {
    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      engine.put(new byte[] {1}, new byte[] {2});
      assertThat(engine.get(new byte[] {1}).value()).containsExactly(2);
    }
  }
}
