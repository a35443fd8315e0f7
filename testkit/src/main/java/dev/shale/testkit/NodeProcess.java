package dev.shale.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * A Shale node running as a real process: {@code java -cp <this JVM's class path>
 * dev.shale.app.Main server ...} on a loopback port (or on a given host, run through a command
 * prefix such as {@code ip netns exec <ns>}), with its output in a log file.
 *
 * <p>Use it in try-with-resources: {@link #close()} kills the process by its PID if it is still
 * alive, also when the test fails.
 */
public final class NodeProcess implements AutoCloseable {
  private static final HttpClient PROBE = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(1))
      .build();

  private static final String LOOPBACK = "127.0.0.1";

  private final Process process;
  private final String host;
  private final int port;
  private final Path log;

  private NodeProcess(Process process, String host, int port, Path log) {
    this.process = process;
    this.host = host;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts a node on {@code port} with data in {@code dataDir}; {@code jvmOptions} go to the JVM
   * (e.g. -Xmx256m), {@code serverArgs} after {@code server --port P --data D}.
   */
  public static NodeProcess start(int port, Path dataDir, List<String> jvmOptions, List<String> serverArgs) {
    return start(List.of(), LOOPBACK, port, dataDir, jvmOptions, serverArgs);
  }

  /**
   * Like {@link #start(int, Path, List, List)}, but listening on {@code host} and run as
   * {@code <commandPrefix> java ...}. The prefix must end by exec-ing java in place (as
   * {@code ip netns exec <ns>} does), so that {@link #pid()} is the node's own process.
   */
  public static NodeProcess start(
      List<String> commandPrefix, String host, int port, Path dataDir, List<String> jvmOptions, List<String> serverArgs) {
    List<String> args = new ArrayList<>(List.of(
        "server", "--host", host, "--port", Integer.toString(port), "--data", dataDir.toString()));
    args.addAll(serverArgs);
    try {
      Files.createDirectories(dataDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dataDir, e);
    }
    // The log goes beside the data directory, which a relative single name ("data") also has.
    Path logDir = dataDir.toAbsolutePath().getParent();
    if (logDir == null) throw new IllegalArgumentException("the data directory cannot be the root: " + dataDir);
    return launch(commandPrefix, host, port, logDir, jvmOptions, args);
  }

  /**
   * Runs {@code shale <args>} (any command), whose HTTP API is expected on {@code port} (what
   * {@link #awaitReady} probes); its output goes to a log file in {@code logDir}.
   */
  public static NodeProcess startCommand(int port, Path logDir, List<String> jvmOptions, List<String> args) {
    return launch(List.of(), LOOPBACK, port, logDir, jvmOptions, args);
  }

  /**
   * Runs {@code command} as it is (a launcher and its arguments, e.g. a release's {@code bin/shale
   * server ...}, perhaps after a prefix such as {@code ip netns exec <ns>}) with exactly the
   * variables of {@code environment}, its HTTP API expected on {@code host}:{@code port}; its
   * output goes to a log file in {@code logDir}. Every program in it must exec the next in place
   * (as {@code ip netns exec} and the launchers do), so that {@link #pid()} is the node's own.
   */
  public static NodeProcess startExecutable(List<String> command, Map<String, String> environment, String host, int port, Path logDir) {
    return launch(command, environment, host, port, logDir);
  }

  private static NodeProcess launch(
      List<String> commandPrefix, String host, int port, Path logDir, List<String> jvmOptions, List<String> args) {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>(commandPrefix);
    command.add(java);
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("--sun-misc-unsafe-memory-access=allow");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("dev.shale.app.Main");
    command.addAll(args);
    return launch(command, null, host, port, logDir);
  }

  // environment null: this JVM's own.
  private static NodeProcess launch(List<String> command, @Nullable Map<String, String> environment, String host, int port, Path logDir) {
    try {
      Files.createDirectories(logDir);
      Path log = Files.createTempFile(logDir, "node-" + port + "-", ".log");
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      if (environment != null) {
        builder.environment().clear();
        builder.environment().putAll(environment);
      }
      return new NodeProcess(builder.start(), host, port, log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a node: " + command, e);
    }
  }

  /** Waits until {@code GET /v0/status} answers 200; fails with the node's log if it does not. */
  public NodeProcess awaitReady(Duration timeout) {
    try {
      Await.until("node on port " + port + " to answer /v0/status", timeout, () -> {
        if (!process.isAlive()) {
          throw new AssertionError("node on port " + port + " exited with " + process.exitValue() + ":\n" + log());
        }
        return isReady();
      });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n--- node log ---\n" + log(), e);
    }
    return this;
  }

  /** Whether {@code GET /v0/status} answers 200 now (one probe, at most a second). */
  public boolean isReady() {
    try {
      HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl() + "/v0/status"))
          .timeout(Duration.ofSeconds(1))
          .build();
      return PROBE.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  public String baseUrl() {
    return "http://" + host + ":" + port;
  }

  public int port() {
    return port;
  }

  /** The PID of the process this object started (the node itself when a prefix exec-ed it in place). */
  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Sends SIGTERM and returns the exit status; fails if the node takes longer than {@code timeout}. */
  public int terminate(Duration timeout) {
    process.destroy(); // SIGTERM on Linux
    return awaitExit(timeout);
  }

  /** Sends SIGKILL (kill -9) and waits for the process to be gone. */
  public void kill() {
    process.destroyForcibly(); // SIGKILL on Linux
    awaitExit(Duration.ofSeconds(30));
  }

  /** Waits for the process to exit by itself and returns its status; fails past {@code timeout}. */
  public int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("node " + pid() + " still running " + timeout.toMillis() + " ms later\n" + log());
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for node " + pid(), e);
    }
  }

  /** What the node printed so far. */
  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e + ")";
    }
  }

  /**
   * Kills the process by its PID if it is still running, and every process it started (a
   * {@code shale cluster} launcher's nodes, which would otherwise outlive a failed test).
   */
  @Override
  public void close() {
    List<ProcessHandle> children = process.descendants().toList(); // before the parent dies and they are orphaned
    if (process.isAlive()) process.destroyForcibly();
    children.forEach(ProcessHandle::destroyForcibly);
    try {
      process.waitFor(30, TimeUnit.SECONDS);
      for (ProcessHandle child : children) child.onExit().get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError("a process started by node " + pid() + " did not stop", e);
    }
  }
}
