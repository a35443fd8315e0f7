package dev.shale.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The commands the profiler sends, with an agent that records them and refuses perf events the
 * way async-profiler does where the kernel forbids them. (Forbidding perf events for real needs a
 * non-root node or a seccomp filter, which a test cannot set up portably; the conversion of a
 * real recording is exercised by the report and `load --profile` against a node.)
 */
class NodeProfilerTest {
  private static final Path PREFIX = Path.of("/tmp/flame/put");
  private final List<String> commands = new ArrayList<>();
  private final StringWriter output = new StringWriter();

  private NodeProfiler profiler(boolean perfAllowed, List<ProfileEvent> events) {
    NodeProfiler.Agent agent = arguments -> {
      commands.add(arguments);
      if (!perfAllowed && arguments.contains("event=cpu")) {
        throw new LoadException("async-profiler refused '" + arguments + "' (code 200)");
      }
    };
    return new NodeProfiler(agent, 42, events, PREFIX, new PrintWriter(output, true));
  }

  @Test
  void recordsEveryEventAtOnceWithPerfEventsWhereAllowed() {
    NodeProfiler profiler = profiler(true, List.of(ProfileEvent.CPU, ProfileEvent.ALLOC, ProfileEvent.LOCK));
    profiler.measurementStarted();

    assertThat(profiler.cpuEvent()).isEqualTo("cpu");
    assertThat(profiler.failure()).isNull();
    assertThat(commands).containsExactly("start,event=cpu,alloc,lock,file=/tmp/flame/put.jfr");
    assertThat(profiler.flameGraphs()).containsOnlyKeys("cpu", "alloc", "lock")
        .containsEntry("cpu", Path.of("/tmp/flame/put-cpu.html"));
    assertThat(output.toString()).contains("profiling cpu,alloc,lock of pid 42").doesNotContain("itimer");
  }

  @Test
  void cpuFallsBackToItimerWherePerfEventsAreRefusedAndSaysSo() {
    NodeProfiler profiler = profiler(false, List.of(ProfileEvent.CPU, ProfileEvent.ALLOC));
    profiler.measurementStarted();

    assertThat(profiler.cpuEvent()).isEqualTo("itimer");
    assertThat(profiler.failure()).isNull();
    assertThat(commands).containsExactly(
        "start,event=cpu,alloc,file=/tmp/flame/put.jfr", "start,event=itimer,alloc,file=/tmp/flame/put.jfr");
    assertThat(profiler.flameGraphs()).containsOnlyKeys("itimer", "alloc");
    assertThat(output.toString())
        .contains("perf events are not allowed here", NodeProfiler.PARANOID, "CPU profile uses itimer instead")
        .contains("profiling itimer,alloc of pid 42");
  }

  @Test
  void withoutCpuNothingFallsBack() {
    NodeProfiler profiler = profiler(false, List.of(ProfileEvent.ALLOC, ProfileEvent.LOCK));
    profiler.measurementStarted();

    assertThat(profiler.cpuEvent()).isNull();
    assertThat(commands).containsExactly("start,alloc,lock,file=/tmp/flame/put.jfr");
  }

  @Test
  void aMissingRecordingIsAFailureNotAnEmptyGraph() {
    NodeProfiler profiler = profiler(true, List.of(ProfileEvent.CPU));
    profiler.measurementStarted();
    profiler.measurementEnded(); // the test agent writes no recording

    assertThat(profiler.failure()).hasMessageContaining("wrote no recording");
    assertThat(profiler.flameGraphs()).isEmpty();
    assertThat(commands).last().isEqualTo("stop,file=/tmp/flame/put.jfr");
  }
}
