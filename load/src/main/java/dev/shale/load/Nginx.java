package dev.shale.load;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * nginx answering a fixed reply (bench/nginx/fixed-reply.conf, on 127.0.0.1:8090): the
 * plain-HTTP ceiling a report compares the node with. Started only when it is not already
 * listening; stopped by {@link #close} only if this started it.
 */
final class Nginx implements AutoCloseable {
  static final URI URL = URI.create("http://127.0.0.1:8090");
  static final Path CONFIG = Path.of("bench/nginx/fixed-reply.conf");

  private final @Nullable Path prefix; // null: not started by us

  private Nginx(@Nullable Path prefix) {
    this.prefix = prefix;
  }

  /** nginx listening on {@link #URL}, started if needed; null (with the reason printed) if it cannot be. */
  static @Nullable Nginx startIfNeeded(java.io.PrintWriter log) {
    if (listening()) return new Nginx(null);
    Path config = CONFIG.toAbsolutePath();
    if (!Files.isRegularFile(config)) {
      log.println("  nginx ceiling skipped: " + config + " not found (run from the repository's root)");
      return null;
    }
    try {
      Path prefix = Files.createTempDirectory("shale-nginx");
      if (run(List.of("nginx", "-p", prefix.toString(), "-c", config.toString())) != 0 || !awaitListening()) {
        log.println("  nginx ceiling skipped: nginx did not start (apt-get install nginx-light)");
        return null;
      }
      return new Nginx(prefix);
    } catch (IOException e) {
      log.println("  nginx ceiling skipped: cannot run nginx (" + e.getMessage() + "; apt-get install nginx-light)");
      return null;
    }
  }

  private static boolean awaitListening() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (listening()) return true;
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
    return false;
  }

  private static boolean listening() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(URL.getHost(), URL.getPort()), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int run(List<String> command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return -1;
      }
      return p.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  @Override
  public void close() {
    if (prefix == null) return;
    try {
      run(List.of("nginx", "-p", prefix.toString(), "-c", CONFIG.toAbsolutePath().toString(), "-s", "stop"));
    } catch (IOException e) {
      // nothing more to do: the temporary prefix says where its pid file is
    }
  }
}
