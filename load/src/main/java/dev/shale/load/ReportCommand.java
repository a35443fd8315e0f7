package dev.shale.load;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code shale report}: the standard scenarios, each one's stable rate found by {@link
 * KneeSearch}, the node profiled at that rate, the nginx ceiling beside them, all written into
 * one Markdown report with its plots and flame graphs.
 */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    usageHelpWidth = 100,
    description = {
      "Writes a performance report of a node: the stable rate of each standard scenario.",
      "Runs the standard scenarios against a node (PUT 100 B and 1 KB, 1 and 64 connections; then, on",
      "a store --heap-factor times the node's heap (or --memory-factor times its whole memory: a store",
      "larger than memory), GET of existing keys uniform and Zipfian, GET of",
      "absent keys, and uniform GET again after a full compaction), finds each one's stable rate,",
      "profiles the node there, measures nginx's fixed reply as the plain-HTTP ceiling",
      "(bench/nginx/fixed-reply.conf; run from the repository's root), and writes report.md with plots.",
      "With --cluster-url, also PUT and GET through one node of a cluster at ack=2 from=3 and ack=1 from=3.",
      "Long: each rate tried runs its warmup and measured interval (45 s), 8 to 14 rates a scenario:",
      "about 1.5 to 2 hours for the 11 scenarios (4 more with --cluster-url: about 40 minutes),",
      "plus filling the store. --quick (4 s a rate, fewer rates, a small store) takes about 10 minutes."
    })
public final class ReportCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--url", description = "The node of the single-node scenarios, e.g. http://127.0.0.1:8080.")
  @Nullable String url;

  @Option(names = "--cluster-url",
      description = "A node of a running cluster of 3 or more nodes (e.g. node 0 of `shale cluster --nodes 3`): the "
          + "cluster scenarios go through it.")
  @Nullable String clusterUrl;

  @Option(names = "--out", required = true, description = "Directory of the report (e.g. docs/perf/report-2026-11-22).")
  Path out;

  @Option(names = "--quick", description = "Smoke run: 3 s measured, 1 s warmup, coarse search, small store.")
  boolean quick;

  @Option(names = "--keys", description = "Keys of 1 KiB filled for the GET scenarios, instead of --heap-factor's count.")
  Long keys;

  @Option(names = "--profile", defaultValue = "cpu,alloc,lock",
      description = "Events profiled at each stable rate (empty: none). Default: ${DEFAULT-VALUE}.")
  String profile;

  @Option(names = "--no-nginx", description = "Skip the nginx ceiling.")
  boolean noNginx;

  @Option(names = "--heap-factor", defaultValue = "10",
      description = "The GET scenarios' store holds this many times the node's heap (from /v0/status) in 1 KiB "
          + "values. Default: ${DEFAULT-VALUE} (--quick: 20000 keys at most).")
  double heapFactor;

  @Option(names = "--memory-factor",
      description = "Instead of --heap-factor: the GET scenarios' store holds this many times the node's whole memory "
          + "(its --memory, from /v0/status), a store larger than memory when the node runs in a memory cgroup of that "
          + "size (bench/in-memory-cgroup.sh). The values differ, so the store is that large on disk.")
  Double memoryFactor;

  @Option(names = "--duration", converter = DurationConverter.class,
      description = "Measured interval of each rate tried. Default: 30s (--quick: 3s).")
  Duration duration;

  @Option(names = "--warmup", converter = DurationConverter.class,
      description = "Unrecorded warmup before each rate's measured interval. Default: 15s (--quick: 1s).")
  Duration warmup;

  @Option(names = "--start", description = "First rate tried, requests/s. Default: 1000.")
  Double start;

  @Option(names = "--max", description = "Highest rate tried, requests/s. Default: 1000000.")
  Double max;

  @Option(names = "--max-steps", description = "Bisection steps at most. Default: 5 (--quick: 2).")
  Integer maxSteps;

  @Mixin NodeAccess access;

  @Option(names = "--threads", defaultValue = "1", description = "Generator event-loop threads. Default: ${DEFAULT-VALUE}.")
  int threads;

  @Override
  public Integer call() throws Exception {
    PrintWriter log = spec.commandLine().getOut();
    List<ProfileEvent> events = profile.isBlank() ? List.of() : parseEvents();
    Settings s = settings();
    if (url == null && clusterUrl == null) throw new ParameterException(spec.commandLine(), "give --url, --cluster-url or both");
    LoadSpec single = url == null ? null : base(s, url, "--url");
    LoadSpec cluster = clusterUrl == null ? null : base(s, clusterUrl, "--cluster-url");
    Path flameDir = out.resolve("flame");
    Files.createDirectories(out);
    Environment env = Environment.here();
    LoadSpec base = single != null ? single : java.util.Objects.requireNonNull(cluster);

    if (single != null && memoryFactor != null) memoryBudget(single); // refused before any load, not after the PUTs
    List<Outcome> outcomes = new ArrayList<>();
    if (single != null) {
      for (Scenario scenario : putScenarios()) outcomes.add(measure(scenario, single, s, events, flameDir, log));
      outcomes.addAll(getScenarios(single, s, events, flameDir, log));
    }
    if (cluster != null) outcomes.addAll(clusterScenarios(cluster, s, events, flameDir, log));

    List<Outcome> ceiling = noNginx ? List.of() : nginxCeiling(base, s, log);
    ReportWriter.write(out, env, s.describe(), base, single, cluster, outcomes, ceiling, events, quick);
    log.println("report: " + out.resolve("report.md"));
    return 0;
  }

  /** The full or quick settings, with what the command line overrides. */
  private Settings settings() {
    Settings d = quick ? Settings.QUICK : Settings.FULL;
    Settings s = new Settings(duration != null ? duration : d.duration(), warmup != null ? warmup : d.warmup(),
        start != null ? start : d.start(), max != null ? max : d.max(), d.precision(),
        maxSteps != null ? maxSteps : d.bisections(), d.keys());
    if (s.duration().isZero() || s.duration().isNegative()) throw new ParameterException(spec.commandLine(), "--duration must be positive");
    if (s.warmup().isNegative()) throw new ParameterException(spec.commandLine(), "--warmup must not be negative");
    if (s.start() <= 0) throw new ParameterException(spec.commandLine(), "--start must be positive");
    if (s.max() < s.start()) throw new ParameterException(spec.commandLine(), "--start must be at most --max");
    if (s.bisections() < 0) throw new ParameterException(spec.commandLine(), "--max-steps must not be negative");
    return s;
  }

  private List<ProfileEvent> parseEvents() {
    try {
      return ProfileEvent.parseList(profile);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--profile: " + e.getMessage());
    }
  }

  private LoadSpec base(Settings s, String url, String option) {
    LoadSpec node;
    try {
      java.net.URI uri = java.net.URI.create(url);
      boolean web = "http".equals(uri.getScheme()) || "https".equals(uri.getScheme());
      if (!web || uri.getHost() == null || uri.getPort() < 0) {
        throw new IllegalArgumentException(option + " '" + url + "' must be http://host:port or https://host:port");
      }
      node = new LoadSpec(uri, Workload.PUT, s.start, 1, threads, s.duration, s.warmup, 100, s.keys,
          LoadSpec.KeyDistribution.UNIFORM, LoadSpec.KeyOrder.SEQUENTIAL, Duration.ofSeconds(10),
          new java.util.SplittableRandom().nextLong());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    return access.applyTo(node);
  }

  static List<Scenario> putScenarios() {
    List<Scenario> list = new ArrayList<>();
    for (int size : new int[] {100, 1024}) {
      for (int c : new int[] {1, 64}) {
        list.add(new Scenario("PUT " + size + " B, " + c + " conn", Workload.PUT, c, size, LoadSpec.KeyDistribution.UNIFORM));
      }
    }
    return list;
  }

  /** Values of the GET scenarios' store: 1 KiB, so that its size comes from data, not keys. */
  static final int GET_STORE_VALUE_BYTES = 1024;

  /**
   * The GET scenarios, on a store {@code heapFactor} times the node's heap (PERFORMANCE.md: a
   * store larger than the heap, then after compaction): fill it, measure GET of existing keys
   * (uniform on 1 and 64 connections, Zipfian) and of absent keys, compact the whole store, and
   * measure uniform GET again. Before the compaction the fill has left tables over several levels
   * and the PUT scenarios' overwritten versions; after it, one sorted run with one version per key.
   */
  private List<Outcome> getScenarios(LoadSpec base, Settings s, List<ProfileEvent> events, Path flameDir,
      PrintWriter log) throws Exception {
    // The store's size as a multiple of the node's heap, or of its whole memory with --memory-factor.
    long unitBytes;
    String unit;
    double wanted;
    if (memoryFactor != null) {
      unitBytes = memoryBudget(base);
      unit = "memory";
      wanted = memoryFactor;
    } else {
      unitBytes = NodeStatus.maxHeapBytes(base);
      unit = "heap";
      wanted = heapFactor;
    }
    long keyCount = keys != null ? keys : (long) Math.ceil(wanted * unitBytes / GET_STORE_VALUE_BYTES);
    if (quick && keys == null) keyCount = Math.min(keyCount, Settings.QUICK.keys);
    double factor = keyCount * (double) GET_STORE_VALUE_BYTES / unitBytes;
    log.printf(Locale.ROOT, "filling %d keys of %d B for the GET scenarios (%.2f GiB, %.1fx the node's %d MiB %s)%n",
        keyCount, GET_STORE_VALUE_BYTES, keyCount * (double) GET_STORE_VALUE_BYTES / (1L << 30), factor, unitBytes >> 20, unit);
    LoadSpec store = base.withKeys(keyCount);
    Fill.run(store.withWorkload(Workload.PUT, 16, GET_STORE_VALUE_BYTES), log);

    String size = String.format(Locale.ROOT, factor >= 10 ? "%.0fx %s" : "%.1fx %s", factor, unit);
    List<Outcome> outcomes = new ArrayList<>();
    for (Scenario scenario : getScenarios(size)) outcomes.add(measure(scenario, store, s, events, flameDir, log));
    log.println("compacting the whole store (POST /v0/admin/compact)");
    String compacted = NodeStatus.compact(base, Duration.ofHours(1));
    log.println(compacted);
    Scenario after = new Scenario("GET uniform, " + size + " compacted, 64 conn", Workload.GET, 64,
        GET_STORE_VALUE_BYTES, LoadSpec.KeyDistribution.UNIFORM);
    Outcome afterOutcome = measure(after, store, s, events, flameDir, log);
    List<String> notes = new ArrayList<>(afterOutcome.notes());
    notes.add("the node's compaction: " + compacted);
    outcomes.add(new Outcome(after, afterOutcome.knee(), afterOutcome.flameGraphs(), notes));
    return outcomes;
  }

  /** The node's --memory, or a usage error if it runs without one. */
  private long memoryBudget(LoadSpec node) throws LoadException {
    long budget = NodeStatus.memoryBudgetBytes(node);
    if (budget == 0) {
      throw new ParameterException(spec.commandLine(), "--memory-factor: the node at " + node.url()
          + " runs without --memory, so its memory is not known; start it with --memory (in a memory cgroup of that size)");
    }
    return budget;
  }

  /** The GET scenarios before compaction; {@code size} names the store, e.g. "10x heap". */
  static List<Scenario> getScenarios(String size) {
    return List.of(
        new Scenario("GET uniform, " + size + ", 1 conn", Workload.GET, 1, GET_STORE_VALUE_BYTES, LoadSpec.KeyDistribution.UNIFORM),
        new Scenario("GET uniform, " + size + ", 64 conn", Workload.GET, 64, GET_STORE_VALUE_BYTES, LoadSpec.KeyDistribution.UNIFORM),
        new Scenario("GET Zipfian, " + size + ", 64 conn", Workload.GET, 64, GET_STORE_VALUE_BYTES, LoadSpec.KeyDistribution.ZIPF),
        new Scenario("GET absent, " + size + ", 64 conn", Workload.GET_ABSENT, 64, GET_STORE_VALUE_BYTES,
            LoadSpec.KeyDistribution.UNIFORM));
  }

  /** The consistency levels of the cluster scenarios: the default quorum, and one acknowledgement of three. */
  static final List<String> CLUSTER_QUORUMS = List.of("ack=2&from=3", "ack=1&from=3");

  /** Keys of the cluster GET scenarios' store without --keys: enough to leave the memtables, few enough to fill fast. */
  static final long CLUSTER_GET_KEYS = 200_000;

  /**
   * The cluster scenarios through {@code cluster}'s node: PUT of 1 KiB values, then, on a store
   * filled through it at the default quorum, uniform GET, each at every {@link #CLUSTER_QUORUMS}
   * level, on 64 connections. The node profiled is the one the load goes through, the
   * coordinator of every request (the other replicas' work does not show in its flame graph).
   */
  private List<Outcome> clusterScenarios(LoadSpec cluster, Settings s, List<ProfileEvent> events, Path flameDir,
      PrintWriter log) throws Exception {
    List<Outcome> outcomes = new ArrayList<>();
    for (String quorum : CLUSTER_QUORUMS) {
      Scenario put = new Scenario(clusterName("PUT 1 KB", quorum), Workload.PUT, 64, GET_STORE_VALUE_BYTES,
          LoadSpec.KeyDistribution.UNIFORM);
      outcomes.add(measure(put, cluster.withQuery(quorum), s, events, flameDir, log));
    }
    long keyCount = keys != null ? keys : quick ? Settings.QUICK.keys : CLUSTER_GET_KEYS;
    log.printf(Locale.ROOT, "filling %d keys of %d B through %s for the cluster GET scenarios%n", keyCount,
        GET_STORE_VALUE_BYTES, cluster.url());
    LoadSpec store = cluster.withKeys(keyCount);
    Fill.run(store.withWorkload(Workload.PUT, 16, GET_STORE_VALUE_BYTES), log);
    for (String quorum : CLUSTER_QUORUMS) {
      Scenario get = new Scenario(clusterName("GET uniform", quorum), Workload.GET, 64, GET_STORE_VALUE_BYTES,
          LoadSpec.KeyDistribution.UNIFORM);
      outcomes.add(measure(get, store.withQuery(quorum), s, events, flameDir, log));
    }
    return outcomes;
  }

  private static String clusterName(String what, String quorum) {
    return "cluster " + what + ", " + quorum.replace('&', ' ') + ", 64 conn";
  }

  /** A scenario's search and, at its stable rate, the profiles. */
  record Outcome(Scenario scenario, KneeSearch.Knee knee, Map<String, Path> flameGraphs, List<String> notes) {
    @Nullable Histogram atStableRate() {
      return knee.trials().stream().filter(t -> t.stable() && t.target() == knee.stableRate())
          .map(t -> t.result().latencyMicros()).findFirst().orElse(null);
    }
  }

  private Outcome measure(Scenario scenario, LoadSpec base, Settings s, List<ProfileEvent> events, Path flameDir,
      PrintWriter log) throws Exception {
    LoadSpec spec = new LoadSpec(base.url(), scenario.workload(), s.start, scenario.connections(),
        Math.min(threads, scenario.connections()), s.duration, s.warmup, scenario.valueSizeBytes(), base.keys(),
        scenario.distribution(), LoadSpec.KeyOrder.SEQUENTIAL, base.timeout(), base.seed())
        .withToken(base.token()).withTls(base.tls());
    log.printf(Locale.ROOT, "%n== %s: searching the stable rate%n%s%n", scenario.name(), KneeTable.HEADER);
    KneeSearch.Knee knee = new KneeSearch(StableRate.DEFAULT, s.precision, s.bisections)
        .search(rate -> LoadRun.run(spec.withRate(rate), MeasurementListener.NONE), s.start, s.max, log);
    Map<String, Path> flames = new LinkedHashMap<>();
    List<String> notes = new ArrayList<>();
    if (knee.stableRate() > 0 && !events.isEmpty()) {
      Files.createDirectories(flameDir);
      NodeProfiler profiler = new NodeProfiler(NodeStatus.pid(base), events, flameDir.resolve(scenario.id()), log);
      LoadRun.run(spec.withRate(knee.stableRate()), profiler);
      flames.putAll(profiler.flameGraphs());
      Exception failure = profiler.failure();
      if (failure != null) notes.add("profiling failed: " + failure.getMessage());
      if ("itimer".equals(profiler.cpuEvent())) notes.add("perf events not allowed: the CPU profile used itimer");
    }
    return new Outcome(scenario, knee, flames, notes);
  }

  private List<Outcome> nginxCeiling(LoadSpec base, Settings s, PrintWriter log) throws Exception {
    try (Nginx nginx = Nginx.startIfNeeded(log)) {
      if (nginx == null) return List.of();
      List<Outcome> outcomes = new ArrayList<>();
      for (int c : new int[] {1, 64}) {
        Scenario scenario = new Scenario("nginx fixed reply, " + c + " conn", Workload.GET_ABSENT, c, 0,
            LoadSpec.KeyDistribution.UNIFORM);
        LoadSpec spec = new LoadSpec(Nginx.URL, Workload.GET_ABSENT, s.start, c, Math.min(threads, c), s.duration,
            s.warmup, 0, 1, LoadSpec.KeyDistribution.UNIFORM, LoadSpec.KeyOrder.SEQUENTIAL, base.timeout(), base.seed());
        log.printf(Locale.ROOT, "%n== %s: searching the stable rate%n%s%n", scenario.name(), KneeTable.HEADER);
        KneeSearch.Knee knee = new KneeSearch(StableRate.DEFAULT, s.precision, s.bisections)
            .search(rate -> LoadRun.run(spec.withRate(rate), MeasurementListener.NONE), s.start, s.max, log);
        outcomes.add(new Outcome(scenario, knee, Map.of(), List.of()));
      }
      return outcomes;
    }
  }

  /** Durations and search bounds of a full or a quick report. */
  record Settings(Duration duration, Duration warmup, double start, double max, double precision, int bisections, long keys) {
    static final Settings FULL = new Settings(Duration.ofSeconds(30), Duration.ofSeconds(15), 1000, 1_000_000, 0.05, 5, 1_000_000);
    static final Settings QUICK = new Settings(Duration.ofSeconds(3), Duration.ofSeconds(1), 1000, 1_000_000, 0.25, 2, 20_000);

    String describe() {
      return String.format(Locale.ROOT, "each rate: %d s warmup (not recorded), then %d s measured; ramp from %.0f req/s "
          + "doubling, then bisection to within %.0f%% (at most %d steps)", warmup.toSeconds(), duration.toSeconds(),
          start, precision * 100, bisections);
    }
  }
}
