package dev.shale.storage.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shale.storage.CpuPriority;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compaction thread runs at the priority the options give it, and only it does (the flush
 * thread keeps the opening thread's): the kernel's own account of each thread's nice value
 * ({@code /proc/self/task/<tid>/stat}).
 */
class CompactionPriorityTest {
  @TempDir Path dir;

  @BeforeEach
  void linuxOnly() {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "per-thread nice values are read from Linux's /proc");
  }

  @Test
  @Timeout(60)
  void lowPriorityEnginesCompactAtNiceNineteenAndFlushAtTheirOwn() throws IOException {
    int own = niceOf(Path.of("/proc/thread-self"));
    try (LsmEngine engine = LsmEngine.open(dir.resolve("L"), EngineTesting.smallOptions(), Hooks.none())) {
      EngineTesting.await("the compaction thread at nice 19",
          () -> niceByThreadName().getOrDefault("shale-compact-L", -100) == 19);
      assertThat(niceByThreadName()).containsEntry("shale-flush-L", own);
      engine.put(EngineTesting.bytes("k"), EngineTesting.bytes("v")); // the engine still works
      assertThat(engine.get(EngineTesting.bytes("k"))).isNotNull();
    }
    assertThat(niceOf(Path.of("/proc/thread-self"))).as("the opening thread's own priority").isEqualTo(own);
  }

  @Test
  @Timeout(60)
  void normalPriorityLeavesThemAtTheOpeningThreadsNiceValue() throws IOException {
    int own = niceOf(Path.of("/proc/thread-self"));
    try (LsmEngine engine = LsmEngine.open(dir.resolve("N"),
        EngineTesting.smallOptions().withCpuPriority(CpuPriority.NORMAL), Hooks.none())) {
      EngineTesting.await("the flush and compaction threads started",
          () -> niceByThreadName().containsKey("shale-flush-N") && niceByThreadName().containsKey("shale-compact-N"));
      assertThat(niceByThreadName()).containsEntry("shale-flush-N", own).containsEntry("shale-compact-N", own);
    }
  }

  /** Every thread of this JVM by its kernel name (at most 15 characters), with its nice value. */
  private static Map<String, Integer> niceByThreadName() {
    Map<String, Integer> nice = new HashMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : tasks.toList()) {
        try {
          nice.put(Files.readString(task.resolve("comm")).strip(), niceOf(task));
        } catch (IOException e) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return nice;
  }

  /** Field 19 of proc_pid_stat(5), the nice value; fields after the parenthesised name start at 3. */
  private static int niceOf(Path task) throws IOException {
    String stat = Files.readString(task.resolve("stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Integer.parseInt(fields[19 - 3]);
  }
}
