package dev.shale.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory cgroups the benchmarks run in: made under this process's own, with a limit, entered
 * and left. They take root (or a delegated cgroup): elsewhere these tests are skipped, saying why.
 */
class MemoryCgroupTest {
  @TempDir Path dir;

  @Test
  void aProcessEnteredIsChargedToTheCgroupAndTheCgroupGoesAwayAtClose() throws Exception {
    Path made;
    Process child = new ProcessBuilder("sleep", "30").start();
    try (MemoryCgroup cgroup = createdOrSkipped("shale-test-" + ProcessHandle.current().pid(), 256L << 20)) {
      made = cgroup.directory();
      assertThat(Files.isDirectory(made)).isTrue();
      cgroup.enter(child.pid());
      assertThat(Files.readAllLines(made.resolve("cgroup.procs"))).contains(Long.toString(child.pid()));
      assertThat(cgroup.usageBytes()).isNotNegative().isLessThanOrEqualTo(256L << 20);
      assertThat(cgroup.oomKills()).isZero();
      child.destroy();
      assertThat(child.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    } finally {
      child.destroyForcibly();
    }
    assertThat(Files.exists(made)).as("removed at close").isFalse();
  }

  @Test
  void aBenchmarkRunWithAMemoryLimitRunsInItsCgroupAndComesBack() throws Exception {
    Path own = MemoryCgroup.ownCgroup();
    createdOrSkipped("shale-probe-" + ProcessHandle.current().pid(), 64L << 20).close(); // root, or skip
    EngineBenchConfig config = new EngineBenchConfig(EngineChoice.SHALE, 2000, 100, List.of(Workload.FILLRANDOM, Workload.READRANDOM),
        2000, 10, 2, dir.resolve("data"), null, 3, false, 200, 0, EngineBenchConfig.DEFAULT_COMPRESSION, ValueKind.RANDOM,
        1L << 30, false);
    StringWriter text = new StringWriter();

    assertThat(EngineBench.run(config, new PrintWriter(text, true))).as("%s", text).isTrue();

    assertThat(text.toString()).contains("memory: this JVM runs in the memory cgroup", "limited to 1.0 GiB", "OOM kills 0",
        "times the memory limit (1.0 GiB)");
    assertThat(MemoryCgroup.ownCgroup()).as("back in its own cgroup").isEqualTo(own);
  }

  private static MemoryCgroup createdOrSkipped(String name, long limitBytes) {
    try {
      return MemoryCgroup.create(name, limitBytes);
    } catch (IOException e) {
      assumeTrue(false, "no memory cgroup can be made here (" + e.getMessage() + ")");
      throw new AssertionError(e);
    }
  }
}
