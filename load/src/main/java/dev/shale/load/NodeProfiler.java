package dev.shale.load;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import one.convert.Arguments;
import one.convert.JfrToFlame;
import org.jspecify.annotations.Nullable;

/**
 * async-profiler (the library from Maven Central) attached to the node under test through the
 * JDK attach API: {@link #measurementStarted} starts every event at once into one JFR recording,
 * {@link #measurementEnded} stops it and converts it (async-profiler's jfr-converter) into one
 * HTML flame graph per event. One measured interval thus yields CPU, allocation and lock
 * profiles of the same load. CPU uses perf events; where the kernel does not allow them
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
  private final List<ProfileEvent> events;
  private final Path jfr;
  private final Map<ProfileEvent, Path> htmlByEvent = new LinkedHashMap<>();
  private final PrintWriter log;
  // Guarded by: the run's main thread only.
  private @Nullable String cpuEvent; // "cpu", its fallback "itimer", or null when CPU is not profiled
  private boolean started;
  private @Nullable Exception failure; // the first step that failed, if any

  /** Profiles {@code events} of {@code pid} into {@code <prefix>-<event>.html} (and {@code <prefix>.jfr}). */
  public NodeProfiler(long pid, List<ProfileEvent> events, Path prefix, PrintWriter log) {
    this(new AttachedAgent(pid), pid, events, prefix, log);
  }

  NodeProfiler(Agent agent, long pid, List<ProfileEvent> events, Path prefix, PrintWriter log) {
    if (events.isEmpty()) throw new IllegalArgumentException("no event to profile");
    this.agent = agent;
    this.pid = pid;
    this.events = List.copyOf(events);
    this.jfr = prefix.resolveSibling(prefix.getFileName() + ".jfr");
    for (ProfileEvent event : events) htmlByEvent.put(event, prefix.resolveSibling(prefix.getFileName() + "-" + event.eventName() + ".html"));
    this.log = log;
  }

  /**
   * The flame graphs written, by the name of what was sampled ("cpu", or "itimer" when CPU fell
   * back; "alloc"; "lock"); empty if profiling failed.
   */
  public Map<String, Path> flameGraphs() {
    if (!started || failure != null) return Map.of();
    Map<String, Path> graphs = new LinkedHashMap<>();
    htmlByEvent.forEach((event, html) -> graphs.put(event == ProfileEvent.CPU ? cpuEvent : event.eventName(), html));
    return graphs;
  }

  /** The CPU event actually profiled: "cpu", "itimer" when it fell back, or null. */
  public @Nullable String cpuEvent() {
    return cpuEvent;
  }

  /** Why profiling failed, or null. */
  public @Nullable Exception failure() {
    return failure;
  }

  @Override
  public void measurementStarted() {
    try {
      start();
      started = true;
      log.printf("  profiling %s of pid %d during the measured interval%n", names(), pid);
    } catch (IOException | LoadException e) {
      failure = e;
      log.printf("  profiling %s of pid %d failed: %s%n", names(), pid, e.getMessage());
    }
  }

  @Override
  public void measurementEnded() {
    if (!started) return;
    try {
      agent.command("stop,file=" + jfr.toAbsolutePath());
      for (Map.Entry<ProfileEvent, Path> e : htmlByEvent.entrySet()) {
        convert(e.getKey(), e.getValue());
        log.printf("  flame graph (%s): %s%n", e.getKey() == ProfileEvent.CPU ? cpuEvent : e.getKey().eventName(), e.getValue());
      }
    } catch (IOException | LoadException e) {
      failure = e;
      log.printf("  stopping the profiler of pid %d failed: %s%n", pid, e.getMessage());
    }
  }

  private void start() throws IOException, LoadException {
    if (!events.contains(ProfileEvent.CPU)) {
      agent.command("start," + others() + ",file=" + jfr.toAbsolutePath());
      return;
    }
    try {
      agent.command("start,event=cpu" + withOthers() + ",file=" + jfr.toAbsolutePath());
      cpuEvent = "cpu";
    } catch (LoadException perfRefused) {
      log.printf("  perf events are not allowed here (%s = %s; %s): CPU profile uses itimer instead%n",
          PARANOID, paranoid(), perfRefused.getMessage());
      agent.command("start,event=itimer" + withOthers() + ",file=" + jfr.toAbsolutePath());
      cpuEvent = "itimer";
    }
  }

  /** async-profiler's options for the events other than CPU, which it samples beside it: "alloc,lock". */
  private String others() {
    return events.stream().filter(e -> e != ProfileEvent.CPU).map(ProfileEvent::eventName).collect(Collectors.joining(","));
  }

  private String withOthers() {
    String others = others();
    return others.isEmpty() ? "" : "," + others;
  }

  private String names() {
    return events.stream().map(e -> e == ProfileEvent.CPU && cpuEvent != null ? cpuEvent : e.eventName())
        .collect(Collectors.joining(","));
  }

  /** One event's samples of the recording as an HTML flame graph. */
  private void convert(ProfileEvent event, Path html) throws IOException {
    if (!Files.isRegularFile(jfr)) throw new IOException("the profiler wrote no recording at " + jfr);
    Arguments arguments = new Arguments("--" + event.eventName(), "--title",
        "Shale node, pid " + pid + ": " + (event == ProfileEvent.CPU ? cpuEvent : event.eventName()));
    JfrToFlame.convert(jfr.toString(), html.toString(), arguments);
  }

  private static String paranoid() {
    try {
      return Files.readString(Path.of(PARANOID)).trim();
    } catch (IOException e) {
      return "unreadable";
    }
  }
}
