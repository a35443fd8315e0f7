package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.server.metrics.NodeMetrics;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.testkit.Await;
import dev.shale.testkit.FreePort;
import java.io.File;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GET /metrics: requests counted by method and status, the engine's and the cluster's counters, the JVM's. */
class MetricsTest {
  private static final String HTTP = "shale_http_request_duration_seconds";
  private static final String PEER = "shale_peer_request_duration_seconds";
  // Tests run in the module's directory.
  private static final Path OPERATIONS_GUIDE = Path.of("..", "docs", "operations.md");
  private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "shale.json");
  // A metric's name in a PromQL expression: ours, the JVM's and the process's (Prometheus's own
  // "up" is not a node's). A name of another family would not be checked: the test below
  // counts the expressions that name none.
  private static final Pattern METRIC = Pattern.compile("\\b(?:shale|jvm|process)_[a-zA-Z0-9_]+\\b");

  @TempDir Path dir;

  @Test
  void requestsAreCountedByMethodAndStatusAcrossRealRequests() {
    try (TestServer server = TestServer.start(dir)) {
      for (int i = 0; i < 7; i++) assertThat(server.put(server.entity("k" + i), bytes("v" + i)).statusCode()).isEqualTo(201);
      for (int i = 0; i < 5; i++) assertThat(server.get(server.entity("k" + i)).statusCode()).isEqualTo(200);
      for (int i = 0; i < 3; i++) assertThat(server.get(server.entity("missing" + i)).statusCode()).isEqualTo(404);
      assertThat(server.delete(server.entity("k0")).statusCode()).isEqualTo(202);
      assertThat(server.get(server.uri("/v0/nowhere")).statusCode()).isEqualTo(400);
      assertThat(server.get(server.uri("/v0/entities?start=k")).statusCode()).isEqualTo(200); // a streamed scan
      assertThat(server.get(server.uri("/v0/entities?start=k&scope=nowhere")).statusCode()).isEqualTo(400);

      HttpResponse<byte[]> metrics = server.get(server.uri("/metrics"));
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
      String text = TestServer.text(metrics);
      // The writer sorts labels by name: method, route, status.
      assertThat(value(text, HTTP + "_count", "method=\"PUT\",route=\"entity\",status=\"201\"")).isEqualTo(7);
      assertThat(value(text, HTTP + "_count", "method=\"GET\",route=\"entity\",status=\"200\"")).isEqualTo(5);
      assertThat(value(text, HTTP + "_count", "method=\"GET\",route=\"entities\",status=\"200\"")).isEqualTo(1);
      assertThat(value(text, HTTP + "_count", "method=\"GET\",route=\"entity\",status=\"404\"")).isEqualTo(3);
      assertThat(value(text, HTTP + "_count", "method=\"GET\",route=\"other\",status=\"400\"")).isEqualTo(1);
      assertThat(value(text, HTTP + "_count", "method=\"GET\",route=\"entities\",status=\"400\"")).isEqualTo(1);
      assertThat(value(text, HTTP + "_count", "method=\"DELETE\",route=\"entity\",status=\"202\"")).isEqualTo(1);
      assertThat(value(text, HTTP + "_bucket", "method=\"PUT\",route=\"entity\",status=\"201\",le=\"+Inf\"")).isEqualTo(7);
      assertThat(value(text, HTTP + "_sum", "method=\"PUT\",route=\"entity\",status=\"201\"")).isPositive();

      // The scrape itself is counted once its answer is written: the next scrape shows it.
      String next = TestServer.text(server.get(server.uri("/metrics")));
      assertThat(value(next, HTTP + "_count", "method=\"GET\",route=\"metrics\",status=\"200\"")).isEqualTo(1);
    }
  }

  /**
   * Issue 36, stumble 8: Prometheus's scrapes and the readiness probe's status calls were timed as
   * GETs beside the clients' reads, so an idle node's read latency was that of its scrapes and
   * {@code ShaleSlowReads} went pending. They are counted under their own route; a read is
   * {@code route="entity"}.
   */
  @Test
  void scrapesAndStatusCallsAreNotCountedAsReads() {
    try (TestServer server = TestServer.start(dir)) {
      for (int i = 0; i < 3; i++) assertThat(server.get(server.uri("/v0/status")).statusCode()).isEqualTo(200);
      for (int i = 0; i < 2; i++) assertThat(server.get(server.uri("/metrics")).statusCode()).isEqualTo(200);
      assertThat(server.method("POST", server.uri("/v0/admin/compact")).statusCode()).isEqualTo(200);

      String text = TestServer.text(server.get(server.uri("/metrics")));
      assertThat(text).as("no read was made").doesNotContain("route=\"entity\"");
      assertThat(value(text, HTTP + "_count", "method=\"GET\",route=\"status\",status=\"200\"")).isEqualTo(3);
      assertThat(value(text, HTTP + "_count", "method=\"GET\",route=\"metrics\",status=\"200\"")).isEqualTo(2);
      assertThat(value(text, HTTP + "_count", "method=\"POST\",route=\"admin\",status=\"200\"")).isEqualTo(1);
    }
  }

  @Test
  void theEnginesCountersFollowItsFlushesAndReads() {
    try (TestServer server = TestServer.start(dir)) {
      // Random values: they do not compress, so the flushed bytes are at least the values' bytes.
      Random random = new Random(1);
      for (int i = 0; i < 50; i++) {
        byte[] value = new byte[1000];
        random.nextBytes(value);
        assertThat(server.put(server.entity("k" + i), value).statusCode()).isEqualTo(201);
      }
      String before = TestServer.text(server.get(server.uri("/metrics")));
      assertThat(value(before, "shale_engine_flushes_total", "")).isZero();
      assertThat(value(before, "shale_engine_memtable_bytes", "")).isGreaterThanOrEqualTo(50 * 1000);

      // An operator's compaction flushes the memtable first.
      HttpResponse<byte[]> compact = server.send(HttpRequest.newBuilder(server.uri("/v0/admin/compact"))
          .timeout(TestServer.TIMEOUT).POST(HttpRequest.BodyPublishers.noBody()).build());
      assertThat(compact.statusCode()).isEqualTo(200);
      assertThat(server.get(server.entity("k1")).statusCode()).isEqualTo(200); // from a table now
      assertThat(server.get(server.entity("k1")).statusCode()).isEqualTo(200); // its block from the cache

      String after = TestServer.text(server.get(server.uri("/metrics")));
      assertThat(value(after, "shale_engine_flushes_total", "")).isEqualTo(server.engine.stats().flushes()).isGreaterThanOrEqualTo(1);
      assertThat(value(after, "shale_engine_flush_written_bytes_total", "")).isGreaterThanOrEqualTo(50 * 1000);
      assertThat(value(after, "shale_engine_block_reads_total", "")).isGreaterThanOrEqualTo(2);
      assertThat(value(after, "shale_engine_block_cache_hits_total", "")).isGreaterThanOrEqualTo(1);
      // Both GETs tried memory first; the second, its block cached, was answered there.
      assertThat(value(after, "shale_memory_read_tries_total", "")).isEqualTo(2);
      assertThat(value(after, "shale_memory_read_answers_total", "")).isBetween(1.0, 2.0);
      assertThat(value(after, "shale_memory_read_recent_share", "")).isBetween(0.0, 1.0);
      assertThat(value(after, "shale_engine_block_cache_bytes", "")).isPositive();
      double tableBytes = 0;
      for (int level = 0; level < server.engine.stats().bytesPerLevel().size(); level++) {
        tableBytes += value(after, "shale_engine_table_bytes", "level=\"" + level + "\"");
      }
      assertThat(tableBytes).isEqualTo(server.engine.stats().tableBytes()).isPositive();
      assertThat(value(after, "shale_engine_write_stalls_total", "")).isZero();
      assertThat(value(after, "shale_engine_disk_free_bytes", "")).isPositive();
      assertThat(after).contains("shale_engine_log_fsync_duration_seconds_count", "shale_engine_write_stall_seconds_total",
          "shale_engine_compaction_written_bytes_total");
      // The cluster's, at zero on a node without peers, and the JVM's.
      assertThat(value(after, "shale_hints_pending", "")).isZero();
      assertThat(value(after, "shale_read_repairs_total", "")).isZero();
      assertThat(after).contains("jvm_memory_used_bytes{area=\"heap\"}", "jvm_threads_current", "jvm_gc_collection_seconds_count");
    }
  }

  @Test
  void requestsToAnotherReplicaAreTimedByPeerAndOutcomeAndItsConnectionsShown(@TempDir Path other) throws IOException {
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    try (TestServer b = node(other, portB, urls); TestServer a = node(dir, portA, urls)) {
      for (int i = 0; i < 4; i++) {
        assertThat(a.put(a.uri("/v0/entity?id=k" + i + "&ack=2&from=2"), bytes("v")).statusCode()).isEqualTo(201);
      }
      String text = TestServer.text(a.get(a.uri("/metrics")));
      String peerB = "peer=\"127.0.0.1:" + portB + "\"";
      // Each write went to b once (a wrote its own copy locally). The writer sorts labels by name.
      assertThat(value(text, PEER + "_count", "outcome=\"answered\"," + peerB)).isEqualTo(4);
      assertThat(value(text, PEER + "_count", "outcome=\"timed_out\"," + peerB)).isZero();
      assertThat(value(text, "shale_peer_connections", peerB)).isPositive();
    }
  }

  @Test
  void writesAReplicaMissedCountAsHintsAndItsRequestsAsUnavailable() {
    int port = FreePort.find();
    int absentPort = FreePort.find(); // nothing listens there
    List<String> urls = List.of("http://127.0.0.1:" + port, "http://127.0.0.1:" + absentPort);
    AtomicLong kept = new AtomicLong();
    MissedWrites hints = new MissedWrites() {
      @Override
      public boolean missed(NodeAddress target, byte[] key, byte[] value, long version, long expiresAtMillis) {
        kept.incrementAndGet();
        return true;
      }

      @Override
      public long pending() {
        return kept.get();
      }
    };
    Cluster cluster = new Cluster(new Placement(Topology.fromUrls(urls, "127.0.0.1", port)), InternalAuth.trustedNetwork(), 2_000, 16);
    Engine engine = Engine.open(dir, EngineOptions.defaults());
    try (TestServer a = TestServer.wrap(engine, ShaleServer.start(engine, Env.real(), TestServer.options().withPort(port), cluster, hints))) {
      for (int i = 0; i < 3; i++) {
        assertThat(a.put(a.uri("/v0/entity?id=k" + i + "&ack=1&from=2"), bytes("v")).statusCode()).isEqualTo(201);
      }
      // The coordinator keeps the hint once the absent replica's request has failed, after the answer.
      Await.until("three hints stored", Duration.ofSeconds(30),
          () -> value(TestServer.text(a.get(a.uri("/metrics"))), "shale_hints_stored_total", "") == 3);
      String text = TestServer.text(a.get(a.uri("/metrics")));
      String absent = "peer=\"127.0.0.1:" + absentPort + "\"";
      assertThat(value(text, "shale_hints_pending", "")).isEqualTo(3);
      assertThat(value(text, "shale_hints_refused_total", "")).isZero();
      assertThat(value(text, PEER + "_count", "outcome=\"unavailable\"," + absent)).isEqualTo(3);
      assertThat(value(text, PEER + "_count", "outcome=\"answered\"," + absent)).isZero();
      assertThat(value(text, "shale_peer_connections", absent)).isZero();
    }
  }

  @Test
  void metricsAnswerOnlyGetAndAreGoneWhenTurnedOff() {
    try (TestServer server = TestServer.start(dir)) {
      HttpResponse<byte[]> post = server.method("POST", server.uri("/metrics"));
      assertThat(post.statusCode()).isEqualTo(405);
      assertThat(post.headers().firstValue("Allow")).hasValue("GET");
    }
    try (TestServer off = TestServer.start(dir.resolve("off"), TestServer.options().withMetrics(false))) {
      assertThat(off.put(off.entity("k"), bytes("v")).statusCode()).isEqualTo(201);
      HttpResponse<byte[]> metrics = off.get(off.uri("/metrics"));
      assertThat(metrics.statusCode()).isEqualTo(404);
      assertThat(TestServer.text(metrics)).contains("--metrics=false");
    }
  }

  @Test
  void promtoolFindsTheExpositionValid() throws Exception {
    Path promtool = onPath("promtool");
    assumeTrue(promtool != null, "promtool is not installed (Debian's prometheus package; ./shale test installs it as root)");
    try (TestServer server = TestServer.start(dir)) {
      server.put(server.entity("k"), bytes("v"));
      server.get(server.entity("k"));
      server.get(server.entity("nothing"));
      byte[] exposition = server.get(server.uri("/metrics")).body();
      Path file = dir.resolve("metrics.txt");
      Files.write(file, exposition);
      Process check = new ProcessBuilder(promtool.toString(), "check", "metrics")
          .redirectInput(file.toFile()).redirectErrorStream(true).start();
      assertThat(check.waitFor(60, TimeUnit.SECONDS)).as("promtool ends").isTrue();
      String said = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(check.exitValue()).as("promtool check metrics said: %s", said).isZero();
      assertThat(said).as("lint problems").isBlank();
    }
  }

  @Test
  void everyShaleMetricANodeShowsIsDescribedInTheOperationsGuide(@TempDir Path other) throws IOException {
    String guide = Files.readString(OPERATIONS_GUIDE);
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    try (TestServer b = node(other, portB, urls); TestServer a = node(dir, portA, urls)) {
      assertThat(a.put(a.uri("/v0/entity?id=k&ack=2&from=2"), bytes("v")).statusCode()).isEqualTo(201);
      String text = TestServer.text(a.get(a.uri("/metrics")));
      Matcher families = Pattern.compile("^# TYPE (shale_\\S+) ", Pattern.MULTILINE).matcher(text);
      int seen = 0;
      while (families.find()) {
        assertThat(guide).as("docs/operations.md describes %s", families.group(1)).contains("`" + families.group(1) + "`");
        seen++;
      }
      assertThat(seen).as("shale_ families in a scrape").isGreaterThanOrEqualTo(25);
    }
  }

  @Test
  void theOperationsGuidesScrapeConfigAndRulesPassPromtool() throws Exception {
    Path promtool = onPath("promtool");
    assumeTrue(promtool != null, "promtool is not installed (Debian's prometheus package; ./shale test installs it as root)");
    Matcher yaml = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(OPERATIONS_GUIDE));
    assertThat(yaml.find()).as("the scrape configuration").isTrue();
    Files.writeString(dir.resolve("prometheus.yml"), yaml.group(1));
    assertThat(yaml.find()).as("the rules file").isTrue();
    Files.writeString(dir.resolve("shale-rules.yml"), yaml.group(1));
    // check config reads the rule files it names (shale-rules.yml, beside it) and checks them too.
    Process check = new ProcessBuilder(promtool.toString(), "check", "config", "prometheus.yml")
        .directory(dir.toFile()).redirectErrorStream(true).start();
    assertThat(check.waitFor(60, TimeUnit.SECONDS)).as("promtool ends").isTrue();
    String said = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(check.exitValue()).as("promtool check config said: %s", said).isZero();
    assertThat(said).contains("SUCCESS: 14 rules found");
  }

  /**
   * No alerting rule of docs/operations.md fires on an idle node (issue 36, stumble 8: {@code
   * ShaleSlowReads} went pending on one). A real node, idle but for what a deployment does to it
   * (Prometheus scraping {@code /metrics}, a readiness probe calling {@code /v0/status}), is scraped
   * twice; promtool's rule tests then replay 20 minutes of it, 15 s a scrape: counters, histograms
   * and summaries growing as they grew between the two scrapes, gauges as they were. Every rule must
   * stay quiet at every minute.
   */
  @Test
  void theAlertingRulesStayQuietOnAnIdleNode() throws Exception {
    Path promtool = onPath("promtool");
    assumeTrue(promtool != null, "promtool is not installed (Debian's prometheus package; ./shale test installs it as root)");
    Matcher yaml = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(OPERATIONS_GUIDE));
    assertThat(yaml.find()).as("the scrape configuration").isTrue();
    assertThat(yaml.find()).as("the rules file").isTrue();
    Files.writeString(dir.resolve("shale-rules.yml"), yaml.group(1));
    List<String> alerts = Pattern.compile("- alert: (\\S+)").matcher(yaml.group(1)).results().map(m -> m.group(1)).toList();
    assertThat(alerts).hasSize(14);
    String first;
    String last;
    int rounds = 4;
    try (TestServer server = TestServer.start(dir.resolve("node"))) {
      first = TestServer.text(server.get(server.uri("/metrics")));
      for (int i = 0; i < rounds; i++) {
        assertThat(server.get(server.uri("/v0/status")).statusCode()).isEqualTo(200);
        assertThat(server.get(server.uri("/metrics")).statusCode()).isEqualTo(200);
      }
      last = TestServer.text(server.get(server.uri("/metrics")));
    }
    Files.writeString(dir.resolve("idle-test.yml"), IdleNodeSeries.ruleTest(first, last, rounds + 1, alerts));
    Process test = new ProcessBuilder(promtool.toString(), "test", "rules", "idle-test.yml")
        .directory(dir.toFile()).redirectErrorStream(true).start();
    String said = new String(test.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(test.waitFor(60, TimeUnit.SECONDS)).as("promtool ends").isTrue();
    assertThat(test.exitValue()).as("promtool test rules said: %s", said).isZero();
  }

  /**
   * Every metric the Grafana dashboard (docs/grafana/shale.json) and the alerting rules
   * (docs/operations.md) query is one a node exports: names taken from every PromQL expression of
   * the dashboard's panels and variables and of the rules, each found among the samples of a
   * real node's {@code /metrics} (with their _bucket, _count, _sum and _total suffixes, as
   * Prometheus stores them), the node a member of a two-node cluster that served a write, a read
   * and a scan, started with a memory budget.
   */
  @Test
  void theDashboardAndTheAlertingRulesQueryOnlyMetricsANodeExports(@TempDir Path other) throws IOException {
    String dashboard = Files.readString(DASHBOARD);
    List<String> queries = new java.util.ArrayList<>(
        Pattern.compile("\"(?:expr|definition)\": \"((?:[^\"\\\\]|\\\\.)*)\"").matcher(dashboard).results()
            .map(m -> m.group(1).replace("\\\"", "\"").replace("\\\\", "\\")).toList());
    assertThat(queries).as("the dashboard's queries").hasSizeGreaterThan(40);
    Matcher rules = Pattern.compile("expr: (?:\\|\\n((?:          .*\\n)+)|(.*)\\n)").matcher(Files.readString(OPERATIONS_GUIDE));
    int ruleCount = 0;
    while (rules.find()) {
      queries.add(rules.group(1) != null ? rules.group(1) : rules.group(2));
      ruleCount++;
    }
    assertThat(ruleCount).as("the alerting rules' expressions").isEqualTo(14);

    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    String exposition;
    try (TestServer b = node(other, portB, urls, 0); TestServer a = node(dir, portA, urls, 1L << 30)) {
      assertThat(a.put(a.uri("/v0/entity?id=k&ack=2&from=2"), bytes("v")).statusCode()).isEqualTo(201);
      assertThat(a.get(a.uri("/v0/entity?id=k")).statusCode()).isEqualTo(200);
      assertThat(a.get(a.uri("/v0/entities?start=a")).statusCode()).isEqualTo(200);
      exposition = TestServer.text(a.get(a.uri("/metrics")));
    }
    java.util.Set<String> exported = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", Pattern.MULTILINE).matcher(exposition)
        .results().map(m -> m.group(1)).collect(java.util.stream.Collectors.toSet());
    int named = 0;
    for (String query : queries) {
      if (query.strip().equals("up{job=\"shale\"} == 0")) continue; // Prometheus's own
      List<String> names = METRIC.matcher(query).results().map(m -> m.group()).toList();
      assertThat(names).as("the metrics of %s", query).isNotEmpty();
      for (String name : names) assertThat(exported).as("%s, queried by %s, is exported", name, query).contains(name);
      named++;
    }
    assertThat(named).isEqualTo(queries.size() - 1);
  }

  @Test
  void theTextFormatsMediaTypeIsTheClassicOne() {
    assertThat(NodeMetrics.CONTENT_TYPE).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
  }

  private static TestServer node(Path dir, int port, List<String> urls) {
    return node(dir, port, urls, 0);
  }

  /** A node of the cluster {@code urls} on {@code port}; {@code memoryBytes}: its --memory (0: none). */
  private static TestServer node(Path dir, int port, List<String> urls, long memoryBytes) {
    Topology topology = Topology.fromUrls(urls, "127.0.0.1", port);
    Cluster cluster = new Cluster(new Placement(topology), InternalAuth.trustedNetwork(), 2_000, 16);
    Engine engine = Engine.open(dir, EngineOptions.defaults());
    try {
      return TestServer.wrap(engine, ShaleServer.start(engine, Env.real(), TestServer.options().withPort(port).withMemoryBytes(memoryBytes), cluster));
    } catch (RuntimeException e) {
      engine.close();
      throw e;
    }
  }

  /** The value of the sample {@code name{labels}} ({@code labels} empty: none) in {@code text}; fails if absent. */
  static double value(String text, String name, String labels) {
    String series = labels.isEmpty() ? name : name + "{" + labels + "}";
    Matcher m = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(text);
    assertThat(m.find()).as("a sample %s in:%n%s", series, text).isTrue();
    return Double.parseDouble(m.group(1));
  }

  private static Path onPath(String command) {
    for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(entry, command);
      if (Files.isExecutable(candidate)) return candidate;
    }
    return null;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
