package dev.shale.load;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * async-profiler (the library from Maven Central) attached to the node under test through the
 * JDK attach API: {@link #measurementStarted} starts one event, {@link #measurementEnded} stops
 * it and writes an HTML flame graph. CPU uses perf events; where the kernel does not allow them
 * (perf_event_paranoid, seccomp in containers), it falls back to {@code itimer} and says so.
 */
public final class NodeProfiler implements MeasurementListener {
  static final String PARANOID = "/proc/sys/kernel/perf_event_paranoid";

  /** One async-profiler command (its agent arguments, e.g. "start,event=cpu,file=...") to the node's JVM. */
  interface Agent {
    void command(String arguments) throws IOException, LoadException;
  }

  private final Agent agent;
  private final long pid;
  private final ProfileEvent event;
  private final Path html;
  private final PrintWriter log;
  private String startedEvent; // guarded by: the run's main thread only
  private Exception failure;

  public NodeProfiler(long pid, ProfileEvent event, Path html, PrintWriter log) {
    this(new AttachedAgent(pid), pid, event, html, log);
  }

  NodeProfiler(Agent agent, long pid, ProfileEvent event, Path html, PrintWriter log) {
    this.agent = agent;
    this.pid = pid;
    this.event = event;
    this.html = html;
    this.log = log;
  }

  public Path html() {
    return html;
  }

  /** The event actually profiled ("itimer" when cpu fell back), or null if profiling failed. */
  public String startedEvent() {
    return startedEvent;
  }

  /** Why profiling failed, or null. */
  public Exception failure() {
    return failure;
  }

  @Override
  public void measurementStarted() {
    try {
      startedEvent = start();
      log.printf("  profiling %s of pid %d during the measured interval%n", startedEvent, pid);
    } catch (IOException | LoadException e) {
      failure = e;
      log.printf("  profiling %s of pid %d failed: %s%n", event.eventName(), pid, e.getMessage());
    }
  }

  @Override
  public void measurementEnded() {
    if (startedEvent == null) return;
    try {
      agent.command("stop,file=" + html.toAbsolutePath());
      log.printf("  flame graph (%s): %s%n", startedEvent, html);
    } catch (IOException | LoadException e) {
      failure = e;
      log.printf("  stopping the profiler of pid %d failed: %s%n", pid, e.getMessage());
    }
  }

  private String start() throws IOException, LoadException {
    if (event != ProfileEvent.CPU) {
      agent.command("start,event=" + event.eventName() + ",file=" + html.toAbsolutePath());
      return event.eventName();
    }
    try {
      agent.command("start,event=cpu,file=" + html.toAbsolutePath());
      return "cpu";
    } catch (LoadException perfRefused) {
      log.printf("  perf events are not allowed here (%s = %s; %s): CPU profile uses itimer instead%n",
          PARANOID, paranoid(), perfRefused.getMessage());
      agent.command("start,event=itimer,file=" + html.toAbsolutePath());
      return "itimer";
    }
  }

  private static String paranoid() {
    try {
      return Files.readString(Path.of(PARANOID)).trim();
    } catch (IOException e) {
      return "unreadable";
    }
  }
}
