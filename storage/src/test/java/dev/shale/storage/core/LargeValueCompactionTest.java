package dev.shale.storage.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compaction of many tables of large values fits a small heap: the merge copies out only the
 * record that wins each key, not the current record of every input. It copied all of them: twelve
 * level-0 tables of a 4 MiB value each took 48 MiB of a 32 MiB heap, and the compaction thread
 * died of an OutOfMemoryError (with 16 MiB values, a 128 MiB node's did). The compaction runs in
 * a child JVM whose heap is that small.
 */
class LargeValueCompactionTest {
  private static final int TABLES = 12;
  private static final int VALUE_BYTES = 4 << 20;
  private static final long CHILD_DEADLINE_SECONDS = 120;

  @TempDir Path dir;

  @Test
  void twelveTablesOfFourMebibyteValuesCompactInAThirtyTwoMebibyteHeap() throws Exception {
    Path store = dir.resolve("store");
    Path log = dir.resolve("child.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(List.of(java, "-Xmx32m", "-cp", System.getProperty("java.class.path"),
        Child.class.getName(), store.toString()))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    try {
      assertThat(child.waitFor(CHILD_DEADLINE_SECONDS, TimeUnit.SECONDS)).as("the child finished").isTrue();
    } finally {
      child.destroyForcibly();
    }
    assertThat(child.exitValue()).as("the child's exit; its output:\n%s", Files.readString(log)).isZero();
    try (LsmEngine engine = LsmEngine.open(store, Child.options(), Hooks.none())) {
      assertThat(engine.stats().tablesPerLevel().getFirst()).as("level-0 tables after the compaction").isZero();
      Entry found = engine.get(Child.KEY);
      assertThat(found).isNotNull();
      assertThat(found.value()).as("the newest value").isEqualTo(Child.value(TABLES - 1));
    }
  }

  /** Writes one table per large value, all of one key, then compacts them all at once. */
  public static final class Child {
    static final byte[] KEY = "large".getBytes(StandardCharsets.US_ASCII);

    // Each value fills a memtable, so each goes to a table of its own; level 0 never triggers a
    // compaction by itself, so the twelve are merged in one.
    static EngineOptions options() {
      return EngineOptions.defaults().withMemtableSizeBytes(1 << 20).withL0Triggers(50, 60, 70);
    }

    static byte[] value(int round) {
      byte[] value = new byte[VALUE_BYTES];
      Arrays.fill(value, (byte) ('a' + round));
      return value;
    }

    public static void main(String[] args) {
      try (LsmEngine engine = LsmEngine.open(Path.of(args[0]), options(), Hooks.none())) {
        for (int round = 0; round < TABLES; round++) engine.put(KEY, value(round));
        engine.compact();
      }
      System.out.println("compacted");
    }
  }
}
