package dev.shale.app;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code shale cluster}: a local cluster to try, as child processes of this one, each a
 * {@code shale server} on this JVM's class path. Secure unless told {@code --insecure} (as
 * CockroachDB runs insecure only when told): TLS on every port and between the nodes, and API
 * tokens, with credentials it makes under {@code --data} ({@link LocalClusterCredentials}), so
 * that what one tries locally is what one deploys. Stops them all (SIGTERM, then waits) on
 * SIGTERM or SIGINT.
 */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Starts a local cluster to try, one node process per node.",
      "The nodes listen on consecutive ports from --base-port, with their data under --data",
      "(node-0, node-1, ...) and a freshly generated cluster secret in --data/cluster.secret",
      "(mode 0600). The nodes serve HTTPS and talk to each other over mutual TLS, with a CA and node",
      "certificates made in --data/certs (ca.crt is what clients trust; an existing CA is kept), and",
      "require API tokens: the admin token is in --data/admin.token (mode 0600; kept if it exists).",
      "--insecure: plain HTTP and no tokens instead. Says what it starts as it goes, then prints the",
      "nodes' URLs and how to call them with curl and ./shale; any node serves any key.",
      "Ctrl-C (SIGINT) or SIGTERM stops every node gracefully.",
      ""
    })
final class ClusterCommand implements Callable<Integer> {
  private static final System.Logger LOG = System.getLogger("dev.shale.app.shale");
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final long STOP_TIMEOUT_MILLIS = 5_000 + ServerCommand.SHUTDOWN_SLACK_MILLIS + 1_000;
  private static final int SECRET_BYTES = 32;

  @Spec CommandSpec spec;

  @Option(names = "--nodes", paramLabel = "<n>", defaultValue = "3",
      description = "How many nodes (1 to 64). Default: ${DEFAULT-VALUE}.")
  int nodes;

  @Option(names = "--base-port", paramLabel = "<port>", defaultValue = "8080",
      description = "Port of node-0; node-i listens on --base-port + i. Default: ${DEFAULT-VALUE}.")
  int basePort;

  @Option(names = "--host", paramLabel = "<host>", defaultValue = "127.0.0.1",
      description = "Address every node listens on. Default: ${DEFAULT-VALUE}.")
  String host;

  @Option(names = "--data", paramLabel = "<dir>", defaultValue = "./cluster-data",
      description = "Directory of the nodes' stores, logs, secret, certificates (certs/) and admin token. "
          + "Default: ${DEFAULT-VALUE}.")
  Path data;

  @Option(names = "--insecure",
      description = "Plain HTTP and no API tokens: anyone reaching the ports reads and writes every key, in clear. "
          + "Default: TLS and tokens.")
  boolean insecure;

  @Option(names = "--replication-factor", paramLabel = "<n>",
      description = "How many nodes keep each key (1 to --nodes). Default: 3, or every node when fewer.")
  @Nullable Integer replicationFactor;

  @Option(names = "--node-heap", paramLabel = "<size>", defaultValue = "256m",
      description = "Java heap of each node (-Xmx); the nodes also get this JVM's -XX: options "
          + "(the launcher's collector, SHALE_JAVA_OPTS). Default: ${DEFAULT-VALUE}.")
  String nodeHeap;

  @Option(names = "--node-io-threads", paramLabel = "<n>",
      description = "Event-loop threads of each node (--io-threads). Default: this machine's cores "
          + "shared out among the nodes, at least one each.")
  Integer nodeIoThreads;

  /**
   * Each node's share of the cores. A node alone runs an event loop per core; nodes that share a
   * machine would otherwise run several times more event loops than there are cores, and the
   * kernel switching between them cost a quarter of a replicated PUT's CPU on two cores
   * (docs/perf/cluster.md, issue 14).
   */
  static int ioThreadsPerNode(int cores, int nodes) {
    return Math.max(1, cores / nodes);
  }

  @Override
  public Integer call() throws InterruptedException {
    checkOptions();
    Path secret = writeSecret();
    LocalClusterCredentials credentials = insecure ? null : LocalClusterCredentials.prepare(data, host, nodes);
    List<String> urls = new ArrayList<>();
    for (int i = 0; i < nodes; i++) urls.add((insecure ? "http://" : "https://") + host + ":" + (basePort + i));
    ShutdownSignals signals = ShutdownSignals.install(nodes * STOP_TIMEOUT_MILLIS);
    List<Process> processes = new ArrayList<>();
    PrintWriter out = spec.commandLine().getOut();
    try {
      // Nodes take seconds each to start (a JVM, a store, the cluster map's Raft group): say so
      // at once, and each node as it serves, rather than nothing until the last one does.
      out.println("starting " + nodes + " nodes under " + data + " (secret " + secret + ", logs node-<i>.log)...");
      out.flush();
      for (int i = 0; i < nodes; i++) processes.add(startNode(i, urls, secret, credentials));
      awaitReady(processes, urls, credentials, out);
      out.println("shale cluster of " + nodes + " nodes serving (Ctrl-C stops it):");
      for (int i = 0; i < nodes; i++) out.println("  " + urls.get(i) + "  (log " + log(i) + ")");
      LocalClusterUsage.print(out, urls.getFirst(), credentials);
      out.flush();
      String why = signals.awaitStopRequest();
      LOG.log(Level.INFO, "stopping the cluster on " + why);
    } finally {
      stopAll(processes);
      signals.markStopped();
    }
    return 0;
  }

  private void checkOptions() {
    if (nodes < 1 || nodes > 64) throw usage("--nodes must be in [1, 64]: " + nodes);
    if (nodeIoThreads != null && nodeIoThreads < 1) throw usage("--node-io-threads must be >= 1: " + nodeIoThreads);
    if (basePort < 1 || basePort + nodes - 1 > 65535) {
      throw usage("--base-port " + basePort + " with " + nodes + " nodes leaves [1, 65535]");
    }
    if (replicationFactor != null && (replicationFactor < 1 || replicationFactor > nodes)) {
      throw usage("--replication-factor must be in [1, --nodes " + nodes + "]: " + replicationFactor);
    }
  }

  private Path writeSecret() {
    try {
      Files.createDirectories(data);
      Path file = data.resolve("cluster.secret");
      Files.deleteIfExists(file);
      byte[] random = new byte[SECRET_BYTES];
      new SecureRandom().nextBytes(random);
      SecretFile.write(file, HexFormat.of().formatHex(random).getBytes(StandardCharsets.US_ASCII));
      return file;
    } catch (IOException e) {
      throw new StartupException("cannot write the cluster secret under " + data + ": " + e.getMessage(), e);
    }
  }

  private Process startNode(int i, List<String> urls, Path secret, @Nullable LocalClusterCredentials credentials) {
    List<String> command = new ArrayList<>(List.of(
        ProcessHandle.current().info().command().orElse("java"),
        "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"));
    command.addAll(inheritedJvmOptions());
    command.addAll(List.of("-Xmx" + nodeHeap,
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "server",
        "--host", host, "--port", Integer.toString(basePort + i), "--data", data.resolve("node-" + i).toString(),
        "--cluster", String.join(",", urls), "--cluster-secret-file", secret.toString(),
        "--io-threads", Integer.toString(nodeIoThreads != null ? nodeIoThreads
            : ioThreadsPerNode(Runtime.getRuntime().availableProcessors(), nodes))));
    if (replicationFactor != null) command.addAll(List.of("--replication-factor", replicationFactor.toString()));
    if (credentials == null) {
      command.add("--insecure"); // asked for: a --host off loopback then serves (with a warning) rather than refusing
    } else {
      command.addAll(List.of("--tls-cert", credentials.nodeCertificates().get(i).toString(),
          "--tls-key", credentials.nodeKeys().get(i).toString(), "--tls-cluster-ca", credentials.caCertificate().toString(),
          "--auth", "tokens", "--admin-token-file", credentials.adminToken().toString()));
    }
    try {
      return new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log(i).toFile()))
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start node-" + i + ": " + e.getMessage(), e);
    }
  }

  /** The {@code -XX:} options of this JVM the nodes get too ({@link #nodeJvmOptions}). */
  private static List<String> inheritedJvmOptions() {
    return nodeJvmOptions(ManagementFactory.getRuntimeMXBean().getInputArguments());
  }

  /**
   * Of the options {@code jvmArguments} this JVM was started with, those its nodes get: the
   * {@code -XX:} ones (the launcher's collector choice, {@code SHALE_JAVA_OPTS}), so that the
   * nodes run as this JVM does, and the commit the launcher named ({@link VersionProvider}), so
   * that they log the same version. Other options, a debugger agent's port say, could not be
   * shared by several processes. Not the launcher's soft heap bound: a node's heap is {@code
   * --node-heap}, which the JVM refuses to start with if the bound is larger.
   */
  static List<String> nodeJvmOptions(List<String> jvmArguments) {
    return jvmArguments.stream()
        .filter(a -> (a.startsWith("-XX:") && !a.startsWith("-XX:SoftMaxHeapSize="))
            || a.startsWith("-D" + VersionProvider.COMMIT_PROPERTY + "="))
        .toList();
  }

  private Path log(int i) {
    return data.resolve("node-" + i + ".log");
  }

  /**
   * Waits until every node answers /v0/status, printing each as it does, or fails naming the node
   * that did not.
   */
  private void awaitReady(List<Process> processes, List<String> urls, @Nullable LocalClusterCredentials credentials, PrintWriter out)
      throws InterruptedException {
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1));
    // The status without a token answers whether the node is up: all this needs.
    if (credentials != null) builder.sslContext(ClientTls.context(credentials.caCertificate(), null, null));
    HttpClient http = builder.build();
    long startNanos = System.nanoTime();
    long deadline = startNanos + READY_TIMEOUT.toNanos();
    for (int i = 0; i < processes.size(); i++) {
      while (!isReady(http, urls.get(i))) {
        if (!processes.get(i).isAlive()) {
          throw new StartupException("node-" + i + " exited with status " + processes.get(i).exitValue()
              + "; see " + log(i), null);
        }
        if (System.nanoTime() - deadline > 0) {
          throw new StartupException("node-" + i + " did not serve within " + READY_TIMEOUT.toSeconds() + " s; see " + log(i), null);
        }
        Thread.sleep(100); // polling a child process: there is nothing to wait on
      }
      out.printf(Locale.ROOT, "  node-%d serving at %s (%.1f s)%n", i, urls.get(i), (System.nanoTime() - startNanos) / 1e9);
      out.flush();
    }
  }

  private static boolean isReady(HttpClient http, String url) throws InterruptedException {
    try {
      HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/v0/status")).timeout(Duration.ofSeconds(1)).build();
      return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException e) {
      return false;
    }
  }

  /** SIGTERM to every node at once, then waits for each; one that hangs is killed. */
  private static void stopAll(List<Process> processes) {
    for (Process p : processes) p.destroy();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_TIMEOUT_MILLIS);
    for (Process p : processes) {
      try {
        long leftNanos = Math.max(0, deadline - System.nanoTime());
        if (!p.waitFor(leftNanos, TimeUnit.NANOSECONDS)) {
          LOG.log(Level.WARNING, "node pid " + p.pid() + " did not stop within " + STOP_TIMEOUT_MILLIS + " ms; killing it");
          p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
