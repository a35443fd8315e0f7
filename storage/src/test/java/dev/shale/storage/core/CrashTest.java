package dev.shale.storage.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.manifest.ManifestLoader;
import dev.shale.storage.table.TableMeta;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a real engine process at every named step of a flush, of a compaction and of a switch to
 * a new log segment ({@link CrashChild}), then reopens its directory here: every acknowledged
 * write is there, and no table file is left that the manifest does not name.
 */
class CrashTest {
  private static final long CHILD_DEADLINE_SECONDS = 120;

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {
      "flush.afterTableWritten", "flush.afterManifestCommit", "flush.afterInstall",
      "flush.afterLogDeleted", "compaction.afterOutputWritten", "compaction.afterOutputsWritten",
      "compaction.afterManifestCommit", "compaction.afterInstall",
      "segment.beforeManifestRecord", "segment.afterManifestRecord"})
  void everyAcknowledgedWriteSurvivesACrashAt(String crashPoint) throws Exception {
    Path store = dir.resolve("store");
    Path acknowledged = dir.resolve("acknowledged");
    int exit = runChild(crashPoint, store, acknowledged);
    assertThat(exit).as("the child must die at %s", crashPoint).isEqualTo(CrashChild.EXIT_CRASHED);

    List<Integer> keys = acknowledgedKeys(acknowledged);
    try (LsmEngine engine = LsmEngine.open(store, CrashChild.options(), Hooks.none())) {
      for (int i : keys) {
        assertThat(engine.get(CrashChild.key(i)))
            .as("%s: acknowledged key %d", crashPoint, i).isNotNull()
            .extracting(e -> new String(e.value(), StandardCharsets.US_ASCII))
            .isEqualTo(new String(CrashChild.value(i), StandardCharsets.US_ASCII));
      }
    }
    assertThat(tableFiles(store)).as("%s: .sst files after open", crashPoint)
        .isEqualTo(tablesNamedByManifest(store));
    System.out.println(crashPoint + ": " + keys.size() + " acknowledged keys all present");
  }

  private static int runChild(String crashPoint, Path store, Path acknowledged) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx256m",
        "-Dshale.crashAt=" + crashPoint, "-cp", System.getProperty("java.class.path"),
        CrashChild.class.getName(), store.toString(), acknowledged.toString()));
    Process child = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(store.resolveSibling("child.log").toFile())
        .start();
    if (!child.waitFor(CHILD_DEADLINE_SECONDS, TimeUnit.SECONDS)) {
      child.destroyForcibly();
      throw new AssertionError("child did not finish within " + CHILD_DEADLINE_SECONDS + " s");
    }
    return child.exitValue();
  }

  // A line cut by the halt (no newline yet) was not acknowledged to the reader of the file.
  private static List<Integer> acknowledgedKeys(Path file) throws IOException {
    String text = Files.exists(file) ? Files.readString(file, StandardCharsets.US_ASCII) : "";
    List<Integer> keys = new ArrayList<>();
    int end = text.lastIndexOf('\n');
    if (end < 0) return keys;
    text.substring(0, end).lines().forEach(line -> keys.add(Integer.parseInt(line)));
    return keys;
  }

  private static Set<Long> tableFiles(Path store) {
    Set<Long> numbers = new TreeSet<>();
    for (String name : EngineTesting.fileNames(store)) {
      FileNames.parse(name).filter(p -> p.kind() == FileNames.Kind.TABLE)
          .ifPresent(p -> numbers.add(p.number()));
    }
    return numbers;
  }

  private static Set<Long> tablesNamedByManifest(Path store) throws IOException {
    Set<Long> numbers = new TreeSet<>();
    for (TableMeta t : ManifestLoader.load(Vfs.real(), store).orElseThrow().snapshot().tables()) {
      numbers.add(t.fileNumber());
    }
    return numbers;
  }
}
