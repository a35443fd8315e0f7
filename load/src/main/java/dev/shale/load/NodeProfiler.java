package dev.shale.load;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * async-profiler (the library from Maven Central) attached to the node under test through the
 * JDK attach API: {@link #measurementStarted} starts one event, {@link #measurementEnded} stops
 * it and writes an HTML flame graph. CPU uses perf events; where the kernel does not allow them
 * (perf_event_paranoid, seccomp in containers), it falls back to {@code itimer} and says so.
 */
public final class NodeProfiler implements MeasurementListener {
  /** Where the jar keeps the linux-x64 library. */
  static final String LIBRARY_RESOURCE = "/linux-x64/libasyncProfiler.so";
  static final String PARANOID = "/proc/sys/kernel/perf_event_paranoid";

  private final long pid;
  private final ProfileEvent event;
  private final Path html;
  private final PrintWriter log;
  private String startedEvent; // guarded by: the run's main thread only
  private Exception failure;

  public NodeProfiler(long pid, ProfileEvent event, Path html, PrintWriter log) {
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
      command("stop,file=" + html.toAbsolutePath());
      log.printf("  flame graph (%s): %s%n", startedEvent, html);
    } catch (IOException | LoadException e) {
      failure = e;
      log.printf("  stopping the profiler of pid %d failed: %s%n", pid, e.getMessage());
    }
  }

  private String start() throws IOException, LoadException {
    if (event != ProfileEvent.CPU) {
      command("start,event=" + event.eventName() + ",file=" + html.toAbsolutePath());
      return event.eventName();
    }
    try {
      command("start,event=cpu,file=" + html.toAbsolutePath());
      return "cpu";
    } catch (LoadException perfRefused) {
      log.printf("  perf events are not allowed here (%s = %s; %s): CPU profile uses itimer instead%n",
          PARANOID, paranoid(), perfRefused.getMessage());
      command("start,event=itimer,file=" + html.toAbsolutePath());
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

  /** Sends one async-profiler command to the node's JVM. */
  private void command(String arguments) throws IOException, LoadException {
    Path library = Library.path();
    VirtualMachine vm;
    try {
      vm = VirtualMachine.attach(Long.toString(pid));
    } catch (AttachNotSupportedException e) {
      throw new LoadException("cannot attach to pid " + pid + ": " + e.getMessage(), e);
    }
    try {
      vm.loadAgentPath(library.toString(), arguments);
    } catch (AgentInitializationException e) {
      throw new LoadException("async-profiler refused '" + arguments + "' (code " + e.returnValue() + ")", e);
    } catch (AgentLoadException e) {
      throw new LoadException("cannot load async-profiler into pid " + pid + ": " + e.getMessage(), e);
    } finally {
      vm.detach();
    }
  }

  /** libasyncProfiler.so copied once out of the jar into a temporary directory. */
  private static final class Library {
    private static Path path;

    static synchronized Path path() throws IOException {
      if (path != null) return path;
      Path dir = Files.createTempDirectory("shale-async-profiler");
      Path lib = dir.resolve("libasyncProfiler.so");
      try (InputStream in = NodeProfiler.class.getResourceAsStream(LIBRARY_RESOURCE)) {
        if (in == null) throw new IOException("the async-profiler jar has no " + LIBRARY_RESOURCE + " on the class path");
        Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
      }
      lib.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      path = lib;
      return lib;
    }
  }
}
