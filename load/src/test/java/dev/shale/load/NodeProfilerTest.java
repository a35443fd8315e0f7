package dev.shale.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The profiler's choices, with an agent that records the commands it is sent and refuses perf
 * events the way async-profiler does where the kernel forbids them. (Forbidding perf events for
 * real needs a non-root node or a seccomp filter, which a test cannot set up portably.)
 */
class NodeProfilerTest {
  private final List<String> commands = new ArrayList<>();
  private final StringWriter output = new StringWriter();

  private NodeProfiler profiler(boolean perfAllowed, ProfileEvent event) {
    NodeProfiler.Agent agent = arguments -> {
      commands.add(arguments);
      if (!perfAllowed && arguments.contains("event=cpu")) {
        throw new LoadException("async-profiler refused '" + arguments + "' (code 200)");
      }
    };
    return new NodeProfiler(agent, 42, event, Path.of("/tmp/flame.html"), new PrintWriter(output, true));
  }

  @Test
  void cpuUsesPerfEventsWhereAllowed() {
    NodeProfiler profiler = profiler(true, ProfileEvent.CPU);
    profiler.measurementStarted();
    profiler.measurementEnded();

    assertThat(profiler.startedEvent()).isEqualTo("cpu");
    assertThat(profiler.failure()).isNull();
    assertThat(commands).hasSize(2);
    assertThat(commands.get(0)).startsWith("start,event=cpu,");
    assertThat(commands.get(1)).startsWith("stop,file=");
    assertThat(output.toString()).doesNotContain("itimer");
  }

  @Test
  void cpuFallsBackToItimerWherePerfEventsAreRefusedAndSaysSo() {
    NodeProfiler profiler = profiler(false, ProfileEvent.CPU);
    profiler.measurementStarted();
    profiler.measurementEnded();

    assertThat(profiler.startedEvent()).isEqualTo("itimer");
    assertThat(profiler.failure()).isNull();
    assertThat(commands).hasSize(3);
    assertThat(commands.get(1)).startsWith("start,event=itimer,");
    assertThat(commands.get(2)).startsWith("stop,file=");
    assertThat(output.toString())
        .contains("perf events are not allowed here", NodeProfiler.PARANOID, "CPU profile uses itimer instead")
        .contains("profiling itimer of pid 42");
  }

  @Test
  void otherEventsDoNotFallBack() {
    NodeProfiler profiler = profiler(false, ProfileEvent.ALLOC);
    profiler.measurementStarted();

    assertThat(profiler.startedEvent()).isEqualTo("alloc");
    assertThat(commands).containsExactly("start,event=alloc,file=/tmp/flame.html");
  }
}
