package dev.shale.app;

import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.Cluster;
import dev.shale.cluster.HintLimits;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.cluster.handoff.MapChanges;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.app.membership.RaftMembership;
import dev.shale.server.ServerOptions;
import dev.shale.server.tls.NodeTls;
import dev.shale.storage.Compression;
import dev.shale.storage.CpuPriority;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.storage.SyncMode;
import dev.shale.storage.Vfs;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code shale server}: runs a node until SIGTERM or SIGINT, then stops it cleanly. */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Starts a Shale node: the storage engine on --data and the HTTP API on --host:--port.",
      "It serves once GET /v0/status answers 200. SIGTERM or SIGINT stops it gracefully: it stops",
      "accepting connections, answers the requests it has received (for up to --shutdown-timeout),",
      "closes the store (which fsyncs the log) and exits with status 0.",
      ""
    },
    footer = {
      "",
      "Sizes are bytes, optionally with k, m or g for KiB, MiB or GiB (e.g. 64k, 16m, 1g).",
      "Durations are milliseconds."
    })
final class ServerCommand implements Callable<Integer> {
  private static final System.Logger LOG = System.getLogger("dev.shale.app.shale");
  // After --shutdown-timeout, the time the remaining shutdown steps may take before the watchdog
  // gives up: the worker pool and event loops (2 s each, at most) and closing the engine.
  static final long SHUTDOWN_SLACK_MILLIS = 4_500;

  @Spec CommandSpec spec;

  @Mixin TlsOptions tlsOptions;

  @Option(names = "--host", paramLabel = "<host>", defaultValue = "127.0.0.1",
      description =
          "Address to listen on; 0.0.0.0 for every interface. Default: ${DEFAULT-VALUE}.")
  String host;

  @Option(names = "--insecure",
      description =
          "Serve on a --host that is not a loopback address with neither TLS (--tls-cert) nor API tokens "
          + "(--auth tokens): anyone who reaches the port reads, writes and deletes every key, in clear. Without "
          + "it such a node refuses to start. Not needed on loopback, where only this machine's processes reach it.")
  boolean insecure;

  @Option(names = "--port", paramLabel = "<port>", defaultValue = "8080",
      description =
          "TCP port to listen on (0: any free port, logged at startup). Default: "
          + "${DEFAULT-VALUE}.")
  int port;

  @Option(names = "--data", paramLabel = "<dir>", defaultValue = "./data",
      description =
          "Directory of the store; created if missing. Default: ${DEFAULT-VALUE}.")
  Path data;

  @Option(names = "--cluster", paramLabel = "<url>", split = ",",
      description =
          "Every node of the cluster, this one included, as base URLs, comma-separated (e.g. "
          + "http://10.0.0.1:8080,http://10.0.0.2:8080; https:// with --tls-cert). Give every node the same list, in any "
          + "order; this node is the URL with its --port and its --host (or, with --host "
          + "0.0.0.0, any address of this machine). Each key is stored on the first "
          + "--replication-factor nodes of its preference list and any node answers for any key. "
          + "Default: none, a single node.")
  List<String> cluster;

  @Option(names = "--join", paramLabel = "<url>",
      description =
          "Join the running cluster that this member (its base URL; https:// with --tls-cert) belongs to: this node becomes a "
          + "member, joining then normal, and the members agree on it (Raft). Needs the cluster secret. "
          + "Ignored once the node is a member (its data directory holds the cluster map).")
  @Nullable String join;

  @Option(names = "--raft-port", paramLabel = "<port>",
      description =
          "TCP port of this node's Raft server (the members agree on the cluster map over it; it "
          + "listens on --host). Default: --port + 10000 up to port 22767, --port - 20000 up to 52767, "
          + "--port - 50000 above: never among Linux's ephemeral ports (32768-60999). "
          + "A --cluster bootstrap uses every node's default; give it with --join only.")
  @Nullable Integer raftPort;

  @Option(names = "--replication-factor", paramLabel = "<n>",
      description =
          "How many nodes keep each key (with --cluster; give every node the same): the first n of "
          + "the key's preference list. A request's from defaults to n and its ack to a quorum of "
          + "from (2/3 for 3); from may go up to the number of nodes. Default: 3, or every node of "
          + "a smaller cluster.")
  @Nullable Integer replicationFactor;

  @Option(names = "--cluster-secret", paramLabel = "<secret>",
      description =
          "The secret, shared by every node, that nodes prove to each other when they connect, and "
          + "that signs admin calls (/v0/admin/..., which need it then; at least 16 bytes). Prefer "
          + "--cluster-secret-file: a command line is visible to other users.")
  @Nullable String clusterSecret;

  @Option(names = "--cluster-secret-file", paramLabel = "<file>",
      description =
          "A file holding the cluster secret (trailing white space ignored); keep it mode 0600.")
  @Nullable Path clusterSecretFile;

  @Option(names = "--admin-secret-file", paramLabel = "<file>",
      description =
          "A node without --cluster: admin calls (/v0/admin/...) must be signed with the secret in this "
          + "file (at least 16 bytes; as the cluster secret signs them in a cluster), and are then taken "
          + "from anywhere. Without it such a node serves admin calls to loopback clients only.")
  @Nullable Path adminSecretFile;

  @Option(names = "--auth", paramLabel = "<none|tokens>", defaultValue = "none",
      description =
          "tokens: every client request needs an API token (Authorization: Bearer <token>; README, \"API tokens\"): "
          + "401 without one, 403 outside its scopes or key prefixes; /v0/status without one says only up or down. "
          + "In a cluster, once one member has it every member requires tokens. Default: ${DEFAULT-VALUE}.")
  String auth;

  @Option(names = "--admin-token-file", paramLabel = "<file>",
      description =
          "A file holding the bootstrap admin token (every scope; trailing white space ignored; keep it mode 0600): "
          + "the first token, with which to add the others (shale tokens add). Not stored: give it to each node "
          + "at start, and remove it once other admin tokens exist.")
  @Nullable Path adminTokenFile;

  @Option(names = "--trusted-network",
      description =
          "Run a multi-node cluster without a secret: any request marked as coming from a "
          + "peer is believed. Only where no untrusted client can reach the nodes.")
  boolean trustedNetwork;

  @Option(names = {"--replica-timeout", "--forward-timeout"}, paramLabel = "<ms>", defaultValue = "2000",
      description =
          "Longest time a request to another replica may take, from waiting for a connection to "
          + "its whole answer; past it that replica counts as failed (the client gets 504 when "
          + "fewer than ack replicas answered, and a write becomes a hint). --forward-timeout is "
          + "the old name. Default: ${DEFAULT-VALUE}.")
  long forwardTimeoutMillis;

  @Option(names = "--peer-queue", paramLabel = "<n>", defaultValue = "1024",
      description =
          "Replica requests to one node that may be in flight or wait for its connection, shared "
          + "evenly by the event loops (each keeps one connection to every node); past it they "
          + "fail at once (that replica counts as failed). Default: ${DEFAULT-VALUE}.")
  int maxPendingPerPeer;

  @Option(names = "--read-speculation", paramLabel = "<ms>", defaultValue = "" + Cluster.DEFAULT_READ_SPECULATION_MILLIS,
      description =
          "A read asks ack of its from replicas (this node first when it is one), another at once "
          + "when one fails, and all the rest when it is still unanswered after this long; 0: it "
          + "asks all from replicas at once. Default: ${DEFAULT-VALUE}.")
  long readSpeculationMillis;

  @Option(names = "--hint-max-size", paramLabel = "<size>", defaultValue = "1g",
      converter = ByteSizeConverter.class,
      description =
          "Most bytes of hints (writes another replica missed, kept in <data>/hints until it is "
          + "back) this node keeps; past it new hints are refused and only read repair heals "
          + "those replicas. Default: ${DEFAULT-VALUE}.")
  long hintMaxSizeBytes;

  @Option(names = "--hint-max-age", paramLabel = "<ms>", defaultValue = "10800000",
      description =
          "Longest a hint is kept, from its write's time; older hints are dropped. Must be "
          + "shorter than the tombstone grace period (a day). Default: ${DEFAULT-VALUE} (3 h).")
  long hintMaxAgeMillis;

  @Option(names = "--hint-rate", paramLabel = "<n>", defaultValue = "1000",
      description =
          "Most hints delivered per second, all replicas together (a value counts once per "
          + "64 KiB), so replay does not crowd out live traffic. Default: ${DEFAULT-VALUE}.")
  int hintDeliveriesPerSecond;

  @Option(names = "--repair-interval", paramLabel = "<ms>", defaultValue = "3600000",
      description =
          "How often this node repairs the ranges it shares with each other node (anti-entropy: "
          + "Merkle trees compared, differing records copied, newest version winning); 0 never. "
          + "An operator repairs the whole cluster at once with POST /v0/admin/repair. "
          + "Default: ${DEFAULT-VALUE} (1 h).")
  long repairIntervalMillis;

  @Option(names = "--stream-rate", paramLabel = "<size>", defaultValue = "8m",
      converter = ByteSizeConverter.class,
      description =
          "Most key and value bytes a second this node writes of the data it receives when the "
          + "nodes change (a join or a removal), so that live writes keep their latency. "
          + "Default: ${DEFAULT-VALUE} a second.")
  long streamRateBytes;

  @Option(names = "--sync", paramLabel = "interval|always", defaultValue = "interval",
      converter = SyncModeConverter.class,
      description =
          "When a write is acknowledged. interval: once in the log (written, not yet "
          + "fsynced: survives a crash of the process, not of the machine); the log is "
          + "fsynced every --sync-interval. always: after an fsync (writers share fsyncs). "
          + "Default: ${DEFAULT-VALUE}.")
  SyncMode sync;

  @Option(names = "--sync-interval", paramLabel = "<ms>", defaultValue = "200",
      description =
          "With --sync interval, the longest a write waits for its fsync. Default: "
          + "${DEFAULT-VALUE}.")
  long syncIntervalMillis;

  @Option(names = "--memtable-size", paramLabel = "<size>", defaultValue = "16m",
      converter = ByteSizeConverter.class,
      description =
          "A memtable is flushed to a table once it holds this much (at least 64k). "
          + "Default: ${DEFAULT-VALUE}.")
  long memtableSizeBytes;

  @Option(names = "--compression", paramLabel = "none|lz4|zstd", defaultValue = "lz4",
      converter = CompressionConverter.class,
      description =
          "How the data blocks of new tables are compressed (a block is stored as it is when "
          + "compressing saves less than an eighth of it). Tables written before are read as they "
          + "are, so changing it is safe. Default: ${DEFAULT-VALUE}.")
  Compression compression;

  @Option(names = "--block-cache-size", paramLabel = "<size>",
      converter = ByteSizeConverter.class,
      description =
          "Native memory for data blocks already read, checked and decompressed, so a hot block "
          + "costs no disk read, check or decompression; 0: none. The tables' filters and indexes "
          + "come on top of it. Not with --memory, which sizes it. Default: 32m.")
  @Nullable Long blockCacheBytes;

  @Option(names = "--direct-reads", negatable = true,
      description =
          "Read the table blocks of GETs with O_DIRECT, past the page cache (where the file system "
          + "allows it): the block cache is then their only cache, and a store larger than memory "
          + "does not churn the page cache. Scans, compactions and writes still use the page cache. "
          + "Default: on with --memory (which then gives the block cache the page cache's share), "
          + "off without it.")
  @Nullable Boolean directReadsOption;

  /** Whether gets read past the page cache: as asked, else with --memory (docs/perf/larger-than-memory.md). */
  boolean directReads() {
    return directReadsOption != null ? directReadsOption : memoryBytes != null;
  }

  @Option(names = "--memory", paramLabel = "<size>",
      converter = ByteSizeConverter.class,
      description =
          "All the memory this node may use: heap, native memory and room for the page cache, "
          + "e.g. its container's or cgroup's limit. The block cache (with the tables' filters "
          + "and indexes in it), the scans at once and the heap's check are sized from it "
          + "(docs/operations.md, Memory); ./shale gives the JVM -Xmx of a quarter of it unless "
          + "SHALE_JAVA_OPTS has one. Default: none, each part its own default.")
  @Nullable Long memoryBytes;

  @Option(names = "--compaction-priority", paramLabel = "low|normal", defaultValue = "low",
      converter = CpuPriorityConverter.class,
      description =
          "CPU priority of compactions. low (nice 19 on Linux): they use the CPU that requests "
          + "leave idle, so they do not queue requests behind them; normal: the node's own. "
          + "Flushes keep the node's. Default: ${DEFAULT-VALUE}.")
  CpuPriority compactionPriority;

  @Option(names = "--disk-reserve", paramLabel = "<size>", defaultValue = "64m",
      converter = ByteSizeConverter.class,
      description =
          "Disk space kept free for flushes: writes get 507 while less is free, and are "
          + "taken again by themselves once there is more; compactions start only if they "
          + "leave it free. Default: ${DEFAULT-VALUE}.")
  long diskReserveBytes;

  @Option(names = "--max-value-size", paramLabel = "<size>", defaultValue = "16m",
      converter = ByteSizeConverter.class,
      description =
          "Largest value a PUT may store; a larger body gets 413 (at most 256m). Default: "
          + "${DEFAULT-VALUE}.")
  long maxValueSizeBytes;

  @Option(names = "--max-inflight-bodies", paramLabel = "<size>", defaultValue = "0",
      converter = ByteSizeConverter.class,
      description =
          "Memory for request bodies being received or stored, server-wide; a body that "
          + "does not fit gets 503 with Retry-After. A body of more than 64k counts twice its size "
          + "until it is whole. 0: a quarter of the heap (-Xmx), at most 256m, at least twice "
          + "--max-value-size. Otherwise at least twice --max-value-size. Default: 0.")
  long inflightBodyBytes;

  @Option(names = "--max-inflight-answers", paramLabel = "<size>", defaultValue = "0",
      converter = ByteSizeConverter.class,
      description =
          "Heap for values read and not yet written to their clients, server-wide (values of "
          + "64k and more are written from the store's memory and do not count); a read "
          + "that does not fit waits until earlier answers are written, and a connection "
          + "holding a quarter of it is not read meanwhile. 0: a quarter of the heap (-Xmx), "
          + "at least --max-value-size. Otherwise at least --max-value-size. Default: 0.")
  long inflightAnswerBytes;

  @Option(names = "--workers", paramLabel = "<n>", defaultValue = "16",
      description =
          "Threads that run storage calls. 0: run them on the event loops instead (no "
          + "hand-off, but a slow disk then stalls every connection of that loop). Default: "
          + "${DEFAULT-VALUE}.")
  int workers;

  @Option(names = "--queue-size", paramLabel = "<n>", defaultValue = "1024",
      description =
          "Storage calls that may wait for a worker; when full, requests get 503 with "
          + "Retry-After at once. Default: ${DEFAULT-VALUE}.")
  int queueSize;

  @Option(names = "--io-threads", paramLabel = "<n>", defaultValue = "0",
      description =
          "Event-loop threads that parse requests and write responses. 0: one per CPU "
          + "core. Default: ${DEFAULT-VALUE}.")
  int ioThreads;

  @Option(names = "--max-pipelined", paramLabel = "<n>", defaultValue = "16",
      description =
          "Unanswered requests per connection; past it the server stops reading that "
          + "connection until it answers. Default: ${DEFAULT-VALUE}.")
  int maxPipelinedRequests;

  @Option(names = "--idle-timeout", paramLabel = "<ms>", defaultValue = "60000",
      description =
          "A connection with no traffic for this long, and no answer being prepared, is "
          + "closed. Default: ${DEFAULT-VALUE}.")
  long idleTimeoutMillis;

  @Option(names = "--request-timeout", paramLabel = "<ms>", defaultValue = "30000",
      description =
          "Longest time one request may take to arrive, from its first byte to its last "
          + "(head and body): a request that trickles in slower gets 408 and the connection "
          + "is closed. Default: ${DEFAULT-VALUE}.")
  long requestTimeoutMillis;

  @Option(names = "--shutdown-timeout", paramLabel = "<ms>", defaultValue = "5000",
      description =
          "On SIGTERM, the longest wait for requests in flight to be answered before "
          + "connections are cut. Default: ${DEFAULT-VALUE}.")
  long shutdownTimeoutMillis;

  @Option(names = "--metrics", paramLabel = "<true|false>", arity = "1", defaultValue = "true",
      description =
          "Keep Prometheus metrics and serve them at GET /metrics (docs/operations.md). "
          + "false: no request is timed, and /metrics answers 404. Default: ${DEFAULT-VALUE}.")
  boolean metrics;

  @Override
  public Integer call() throws InterruptedException {
    acceptHttpsUrls();
    ServerOptions serverOptions = serverOptions();
    EngineOptions engineOptions = engineOptions();
    NodeMemory memory = memory();
    if (memory != null) LOG.log(Level.INFO, memory.describe());
    HintLimits hintLimits = hintLimits();
    MembershipStart.Options membership = membershipOptions();
    cluster(); // checks --cluster and the secret before anything starts
    tokenOptions(); // and --auth with its token file
    if (repairIntervalMillis < 0) throw usage("--repair-interval must be >= 0 (0: never): " + repairIntervalMillis);
    if (streamRateBytes < 1 || streamRateBytes > Integer.MAX_VALUE) {
      throw usage("--stream-rate must be in [1, " + Integer.MAX_VALUE + "] bytes a second: " + streamRateBytes);
    }
    boolean member = MembershipStart.needed(data, membership);
    NodeTls tls = tlsOptions.open(member, System::currentTimeMillis);
    requireCredentialsOffLoopback(tls != null || tokenOptions().required());
    ShutdownSignals signals = ShutdownSignals.install(shutdownLimitMillis());
    try {
      // A node alone runs no Raft; any other node's cluster is its Raft-agreed map.
      Node node = member
          ? startMember(engineOptions, serverOptions, hintLimits, membership, tls)
          : Node.startAlone(data, engineOptions, serverOptions, hintLimits, adminSignatures(), tls, tokenOptions());
      node.repairEvery(repairIntervalMillis);
      LOG.log(Level.INFO, "shale " + VersionProvider.version() + " serving " + node.describe());
      String why = "an interrupt";
      try {
        why = signals.awaitStopRequest();
      } finally {
        stop(node, why);
      }
    } finally {
      signals.markStopped();
    }
    return 0;
  }

  private void stop(Node node, String why) {
    LOG.log(Level.INFO,
        "shutting down on " + why + ": refusing new connections, answering requests in flight");
    startWatchdog(shutdownLimitMillis());
    long startNanos = System.nanoTime();
    node.close();
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    LOG.log(Level.INFO, "shutdown complete in " + tookMillis + " ms");
  }

  /**
   * Starts a node whose cluster map is agreed with Raft: its membership first (a restart, a join
   * or a bootstrap: {@link MembershipStart}), then the node over the members it starts with.
   */
  private Node startMember(EngineOptions engineOptions, ServerOptions serverOptions, HintLimits hintLimits,
      MembershipStart.Options options, @Nullable NodeTls tls) {
    InternalAuth auth = auth(join != null || (cluster != null && cluster.size() > 1));
    // The handoff hears the map's changes (once the node serves: Node attaches it), and finishes
    // joins and leaves once the data moved: they do not complete when committed.
    MapChanges changes = new MapChanges();
    MembershipStart started = MembershipStart.start(data, options, auth.adminSignatures(), changes, false, tls);
    Cluster cluster;
    try {
      cluster = new Cluster(new Placement(started.topology()), auth, forwardTimeoutMillis, maxPendingPerPeer, readSpeculationMillis,
          agreedReplicationFactor(started), started.membership());
    } catch (IllegalArgumentException e) {
      started.membership().close();
      throw usage(optionNames(e.getMessage()));
    }
    return Node.start(data, engineOptions, serverOptions, cluster, hintLimits, started.membership(),
        new Node.DataMovement(changes, (int) streamRateBytes), tokenOptions(), tls);
  }

  /** What the options say of the node's membership, or a usage error. */
  MembershipStart.Options membershipOptions() {
    if (join != null && cluster != null) throw usage("give either --cluster (a new cluster) or --join (a running one), not both");
    if (raftPort != null && (raftPort < 1 || raftPort > 65_535)) throw usage("--raft-port must be in [1, 65535]: " + raftPort);
    if (join != null) {
      try {
        NodeAddress.parse(join);
      } catch (IllegalArgumentException e) {
        throw usage("--join: " + e.getMessage());
      }
    }
    if (replicationFactor != null && cluster != null && replicationFactor > cluster.size()) {
      throw usage("--replication-factor (" + replicationFactor + ") exceeds the cluster's " + cluster.size() + " node(s)");
    }
    return new MembershipStart.Options(host, port, cluster, join, raftPort, replicationFactor);
  }

  /** The settings of the HTTP server, or a usage error naming the bad option. */
  ServerOptions serverOptions() {
    ServerOptions options = baseServerOptions();
    NodeMemory memory = memory();
    return memory == null ? options : options.withMaxScans(memory.maxScans()).withMemoryBytes(memory.totalBytes());
  }

  private ServerOptions baseServerOptions() {
    if (maxValueSizeBytes > ServerOptions.MAX_VALUE_SIZE_LIMIT_BYTES) {
      throw usage("--max-value-size must be at most 256m (the engine's limit): " + maxValueSizeBytes);
    }
    try {
      return new ServerOptions(host, port, ioThreads, workers, queueSize, (int) maxValueSizeBytes,
          inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis,
          shutdownTimeoutMillis, ServerOptions.DEFAULT_MAX_SCANS, 0, metrics);
    } catch (IllegalArgumentException e) {
      throw usage(optionNames(e.getMessage()));
    }
  }

  /** The settings of the storage engine, or a usage error naming the bad option. */
  EngineOptions engineOptions() {
    EngineOptions options = baseEngineOptions();
    NodeMemory memory = memory();
    if (memory != null) return options.withBlockCacheBytes(memory.blockCacheBytes()).withIndexesInBlockCache(true);
    // Without --block-cache-size, the engine's default (EngineOptions.DEFAULT_BLOCK_CACHE_BYTES).
    return blockCacheBytes == null ? options : options.withBlockCacheBytes(blockCacheBytes);
  }

  private EngineOptions baseEngineOptions() {
    try {
      EngineOptions defaults = EngineOptions.defaults();
      return defaults
          .withEnv(directReads() ? defaults.env().withVfs(Vfs.realDirect()) : defaults.env())
          .withSyncMode(sync)
          .withSyncIntervalMillis(syncIntervalMillis)
          .withMemtableSizeBytes(memtableSizeBytes)
          .withCompression(compression)
          .withDiskReserveBytes(diskReserveBytes)
          .withCpuPriority(compactionPriority);
    } catch (IllegalArgumentException e) {
      throw usage(optionNames(e.getMessage()));
    }
  }

  /**
   * How --memory is spent with this JVM's heap, or null without it; a usage error if it does not
   * fit or --block-cache-size is given too.
   */
  @Nullable NodeMemory memory() {
    if (memoryBytes == null) return null;
    if (blockCacheBytes != null) {
      throw usage("give --memory or --block-cache-size, not both: --memory sizes the block cache (with the tables' "
          + "filters and indexes in it)");
    }
    long heapBytes = Runtime.getRuntime().maxMemory();
    try {
      return NodeMemory.plan(memoryBytes, heapBytes, baseEngineOptions(), baseServerOptions().answerBudgetBytes(heapBytes), directReads());
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  /** The bounds of the hints this node keeps, or a usage error naming the bad option. */
  HintLimits hintLimits() {
    try {
      return new HintLimits(hintMaxSizeBytes, hintMaxAgeMillis, hintDeliveriesPerSecond);
    } catch (IllegalArgumentException e) {
      throw usage(optionNames(e.getMessage()));
    }
  }

  /**
   * --cluster and --join URLs may be written https:// on a node with TLS: a node is named by its
   * host and port (the cluster map keeps no scheme), and with TLS every connection between the
   * nodes is TLS whatever the scheme written. On a node without TLS an https:// URL would promise
   * what the node does not do, so it is refused.
   */
  private void acceptHttpsUrls() {
    List<String> urls = cluster;
    String member = join;
    boolean https = (urls != null && urls.stream().anyMatch(ClientTls::isHttps)) || (member != null && ClientTls.isHttps(member));
    if (!https) return;
    if (!tlsOptions.serves()) {
      throw new SettingsRefused("https:// URLs in --cluster or --join need --tls-cert, --tls-key and --tls-cluster-ca");
    }
    if (urls != null) cluster = urls.stream().map(ClientTls::asHttp).toList();
    if (member != null) join = ClientTls.asHttp(member);
  }

  /**
   * A node that anyone on a network can reach serves only with credentials, unless told to serve
   * without (as CockroachDB's --insecure): TLS or API tokens, or --insecure, said loudly. On a
   * loopback address only this machine's processes reach it, so the quick start needs neither.
   */
  private void requireCredentialsOffLoopback(boolean credentials) {
    if (credentials || isLoopback(host)) return;
    if (!insecure) {
      throw new SettingsRefused("--host " + host + " is not a loopback address and the node has neither TLS (--tls-cert)"
          + " nor API tokens (--auth tokens): anyone reaching it could read and write every key; give one of them, or"
          + " --insecure to serve without credentials");
    }
    LOG.log(Level.WARNING, "INSECURE: serving on " + host + " without TLS or API tokens (--insecure): anyone who"
        + " reaches port " + port + " reads, writes and deletes every key, in clear");
  }

  // A name that does not resolve now is taken for what it will be: an address others reach.
  static boolean isLoopback(String host) {
    try {
      return java.net.InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  /** What --auth and --admin-token-file ask for, or a usage error. */
  TokenOptions tokenOptions() {
    boolean required = switch (auth) {
      case "none" -> false;
      case "tokens" -> true;
      default -> throw usage("--auth must be none or tokens, not '" + auth + "'");
    };
    if (required && trustedNetwork) {
      throw usage("--auth tokens needs a cluster secret (--cluster-secret-file): the nodes sign their own admin calls with it");
    }
    if (adminTokenFile == null) return new TokenOptions(required, null);
    if (!required) throw usage("--admin-token-file needs --auth tokens");
    byte[] secret = SecretFile.read(adminTokenFile, "--admin-token-file", this::usage);
    if (secret.length < 32) throw usage("--admin-token-file: the token must be at least 32 bytes (shale tokens new-secret makes one)");
    return new TokenOptions(true, new String(secret, java.nio.charset.StandardCharsets.UTF_8));
  }

  // --admin-secret-file, for a node without a cluster (whose members sign with the cluster secret).
  private @Nullable AdminSignatures adminSignatures() {
    if (adminSecretFile == null) return null;
    byte[] secret = SecretFile.read(adminSecretFile, "--admin-secret-file", this::usage);
    try {
      return AdminSignatures.withSecret(secret, Env.real()::wallMillis);
    } catch (IllegalArgumentException e) {
      throw usage("--admin-secret-file: " + e.getMessage());
    }
  }

  /**
   * The cluster that --cluster names, as a fixed topology (null without it), or a usage error
   * saying why not. The node itself starts with the map agreed with Raft ({@link #startMember});
   * this checks the options it starts from.
   */
  @Nullable Cluster cluster() {
    if (adminSecretFile != null && (cluster != null || join != null || RaftMembership.hasStoredGroup(data))) {
      throw usage("--admin-secret-file is for a node without a cluster; a cluster's admin calls are signed with its "
          + "--cluster-secret-file");
    }
    if (cluster == null) {
      if ((clusterSecret != null || clusterSecretFile != null || trustedNetwork || replicationFactor != null) && join == null
          && !RaftMembership.hasStoredGroup(data)) {
        throw usage("--cluster-secret, --cluster-secret-file, --trusted-network and --replication-factor need --cluster or --join");
      }
      return null;
    }
    Topology topology;
    try {
      topology = Topology.fromUrls(cluster, host, port);
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
    try {
      return new Cluster(new Placement(topology), auth(!topology.isSingle()), forwardTimeoutMillis, maxPendingPerPeer,
          readSpeculationMillis, replicationFactor(topology));
    } catch (IllegalArgumentException e) {
      throw usage(optionNames(e.getMessage()));
    }
  }

  /**
   * The replication factor of the cluster's map, once this node has one (it joined, or restarts):
   * the one the cluster was bootstrapped with, which every member uses; a --replication-factor
   * that disagrees is logged and ignored. A new cluster's map is empty until its bootstrap is
   * applied: then the flag's (or the default), which the bootstrap records.
   */
  private int agreedReplicationFactor(MembershipStart started) {
    ClusterMap map = started.membership().current();
    if (map.isEmpty()) return replicationFactor(started.topology());
    if (replicationFactor != null && replicationFactor != map.replicationFactor()) {
      LOG.log(Level.WARNING, "--replication-factor " + replicationFactor + " ignored: the cluster's map records "
          + map.replicationFactor() + " (set when the cluster was bootstrapped)");
    }
    return map.replicationFactor();
  }

  /** --replication-factor, or the default for a cluster of {@code topology}'s size. */
  private int replicationFactor(Topology topology) {
    return replicationFactor != null ? replicationFactor : Cluster.defaultReplicationFactor(topology.size());
  }

  /** How peers authenticate; {@code multiNode}: a missing secret is a usage error. */
  private InternalAuth auth(boolean multiNode) {
    byte[] secret = SecretFile.fromOptions(clusterSecret, clusterSecretFile, this::usage);
    if (secret != null && trustedNetwork) {
      throw usage("give either a cluster secret or --trusted-network, not both");
    }
    if (secret != null) {
      try {
        return InternalAuth.withSecret(secret, Env.real()::wallMillis);
      } catch (IllegalArgumentException e) {
        throw usage(e.getMessage());
      }
    }
    if (trustedNetwork) return InternalAuth.trustedNetwork();
    if (multiNode) {
      throw usage("a cluster of " + (cluster == null ? "several" : cluster.size()) + " nodes needs a secret its nodes prove to each other: "
          + "give every node the same --cluster-secret-file (or --cluster-secret), or --trusted-network "
          + "if no untrusted client can reach the nodes");
    }
    return InternalAuth.none();
  }

  private long shutdownLimitMillis() {
    return shutdownTimeoutMillis + SHUTDOWN_SLACK_MILLIS;
  }

  private ParameterException usage(@Nullable String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  // The options records name their fields in their messages; the user knows the options.
  private static final Map<String, String> OPTION_OF_FIELD = Map.ofEntries(
      Map.entry("host", "--host"),
      Map.entry("port", "--port"),
      Map.entry("ioThreads", "--io-threads"),
      Map.entry("workers", "--workers"),
      Map.entry("queueSize", "--queue-size"),
      Map.entry("maxValueSizeBytes", "--max-value-size"),
      Map.entry("inflightBodyBytes", "--max-inflight-bodies"),
      Map.entry("inflightAnswerBytes", "--max-inflight-answers"),
      Map.entry("maxPipelinedRequests", "--max-pipelined"),
      Map.entry("idleTimeoutMillis", "--idle-timeout"),
      Map.entry("requestTimeoutMillis", "--request-timeout"),
      Map.entry("shutdownTimeoutMillis", "--shutdown-timeout"),
      Map.entry("syncIntervalMillis", "--sync-interval"),
      Map.entry("memtableSizeBytes", "--memtable-size"),
      Map.entry("blockCacheBytes", "--block-cache-size"),
      Map.entry("memoryBytes", "--memory"),
      Map.entry("diskReserveBytes", "--disk-reserve"),
      Map.entry("forwardTimeoutMillis", "--replica-timeout"),
      Map.entry("maxPendingPerPeer", "--peer-queue"),
      Map.entry("readSpeculationMillis", "--read-speculation"),
      Map.entry("replicationFactor", "--replication-factor"),
      Map.entry("maxBytes", "--hint-max-size"),
      Map.entry("maxAgeMillis", "--hint-max-age"),
      Map.entry("deliveriesPerSecond", "--hint-rate"));
  private static final Pattern WORD = Pattern.compile("\\b[a-zA-Z]+\\b");

  /** {@code message} with the options records' field names replaced by option names. */
  static String optionNames(@Nullable String message) {
    if (message == null) return "invalid settings";
    return WORD.matcher(message)
        .replaceAll(m -> Matcher.quoteReplacement(OPTION_OF_FIELD.getOrDefault(m.group(), m.group())));
  }

  /**
   * A stop that hangs (a disk that never answers an fsync, say) must not leave a half-dead
   * process behind: past the limit, say so and halt with status 1. An unclean exit loses no
   * acknowledged write the log holds; the next start replays it.
   */
  private static void startWatchdog(long limitMillis) {
    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(limitMillis);
      } catch (InterruptedException e) {
        return;
      }
      LOG.log(Level.ERROR, "shutdown did not finish within " + limitMillis + " ms; halting");
      Runtime.getRuntime().halt(1);
    }, "shale-shutdown-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }
}
