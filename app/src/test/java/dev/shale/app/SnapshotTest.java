package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.HintLimits;
import dev.shale.server.ServerOptions;
import dev.shale.storage.EngineOptions;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshots ({@code /v0/admin/snapshot}, {@code shale snapshot}) against real nodes. */
class SnapshotTest {
  private static final Duration READY = Duration.ofSeconds(60);
  // Small memtables: the writes cross several flushes and compactions before the snapshot.
  private static final List<String> SMALL_MEMTABLE = List.of("--memtable-size", "262144");
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  /**
   * Seeded puts, overwrites and deletes; a snapshot made with {@code shale snapshot create};
   * more of each after it; then a second node process on a copy of the snapshot serves exactly
   * the data of the snapshot's moment: later writes absent, deletes still deleted.
   */
  @Test
  void aSnapshotCopiedToASecondNodeProcessServesTheDataOfItsMoment() throws Exception {
    long seed = TestSeed.forTest("aSnapshotCopiedToASecondNodeProcessServesTheDataOfItsMoment");
    Random random = new Random(seed);
    Path data = dir.resolve("data");
    Map<String, byte[]> atSnapshot = new HashMap<>(); // null: deleted
    Path snapshot;
    try (NodeProcess node = NodeProcess.start(FreePort.find(), data, List.of("-Xmx256m"), SMALL_MEMTABLE).awaitReady(READY)) {
      EntityClient client = new EntityClient(node.baseUrl());
      for (int i = 0; i < 3000; i++) {
        String key = "k" + random.nextInt(1000);
        if (random.nextInt(4) == 0) {
          assertThat(client.delete(key).status()).as("DELETE %s", key).isEqualTo(202);
          atSnapshot.put(key, null);
        } else {
          byte[] value = new byte[random.nextInt(2000)];
          random.nextBytes(value);
          assertThat(client.put(key, value).status()).as("PUT %s", key).isEqualTo(201);
          atSnapshot.put(key, value);
        }
      }
      assertThat(run("snapshot", "create", "--name", "before", "--via", node.baseUrl())).as(err.toString()).isZero();
      snapshot = Path.of(out.toString().strip());
      assertThat(snapshot).isEqualTo(data.resolve("snapshots").resolve("before").toAbsolutePath());

      for (String key : atSnapshot.keySet()) {
        if (random.nextBoolean()) assertThat(client.put(key, "after".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
        else assertThat(client.delete(key).status()).isEqualTo(202);
      }
      for (int i = 0; i < 100; i++) assertThat(client.put("later" + i, new byte[10]).status()).isEqualTo(201);
      assertThat(run("nodes", "compact", "--via", node.baseUrl())).as(err.toString()).isZero();
      assertThat(node.terminate(Duration.ofSeconds(10))).isZero();
    }

    Path copy = dir.resolve("restored");
    copyTree(snapshot, copy);
    try (NodeProcess restored = NodeProcess.start(FreePort.find(), copy, List.of("-Xmx256m"), List.of()).awaitReady(READY)) {
      EntityClient client = new EntityClient(restored.baseUrl());
      atSnapshot.forEach((key, value) -> {
        EntityClient.Reply reply = client.getOrFail(key);
        if (value == null) {
          assertThat(reply.status()).as("seed %d: GET of %s, deleted before the snapshot", seed, key).isEqualTo(404);
        } else {
          assertThat(reply.status()).as("seed %d: GET %s", seed, key).isEqualTo(200);
          assertThat(reply.body()).as("seed %d: value of %s", seed, key).isEqualTo(value);
        }
      });
      for (int i = 0; i < 100; i++) {
        assertThat(client.getOrFail("later" + i).status()).as("written after the snapshot").isEqualTo(404);
      }
      assertThat(restored.terminate(Duration.ofSeconds(10))).isZero();
    }
  }

  /**
   * Issue 36, stumble 9: with {@code --data ./data} (the default) the path a snapshot's answer gave
   * was {@code /srv/shale/./data/snapshots/<name>}. The path {@code shale snapshot create} prints
   * is the plain one, the same in the list.
   */
  @Test
  void theSnapshotPathHasNoDotSegments() throws Exception {
    int port = FreePort.find();
    String url = "http://127.0.0.1:" + port;
    Path data = dir.resolve(".").resolve("x").resolve("..").resolve("data");
    Path plain = dir.toAbsolutePath().normalize().resolve("data").resolve("snapshots").resolve("plain");
    Files.createDirectories(dir.resolve("x"));
    try (Node node = Node.startAlone(data, EngineOptions.defaults(), ServerOptions.defaults().withPort(port), HintLimits.DEFAULT, null)) {
      assertThat(run("snapshot", "create", "--name", "plain", "--via", url)).as(err.toString()).isZero();
      assertThat(out.toString()).isEqualTo(plain + System.lineSeparator());
      assertThat(call("GET", url + "/v0/admin/snapshots").body()).contains("\"path\": \"" + plain + "\"");
    }
  }

  @Test
  void namesAreCheckedAnExistingNameIsAConflictAndSnapshotsAreListedAndDeleted() throws Exception {
    int port = FreePort.find();
    String url = "http://127.0.0.1:" + port;
    Path data = dir.resolve("data");
    try (Node node = Node.startAlone(data, EngineOptions.defaults(), ServerOptions.defaults().withPort(port), HintLimits.DEFAULT, null)) {
      new EntityClient(url).put("k", "v".getBytes(StandardCharsets.UTF_8));

      assertThat(call("POST", url + "/v0/admin/snapshot?name=..%2Fescape").statusCode()).isEqualTo(400);
      assertThat(call("POST", url + "/v0/admin/snapshot?name=.hidden").statusCode()).isEqualTo(400);
      assertThat(call("POST", url + "/v0/admin/snapshot?name=" + "x".repeat(65)).statusCode()).isEqualTo(400);
      assertThat(data.resolve("escape")).doesNotExist();

      HttpResponse<String> made = call("POST", url + "/v0/admin/snapshot?name=nightly-1");
      assertThat(made.statusCode()).as(made.body()).isEqualTo(200);
      Path path = data.resolve("snapshots").resolve("nightly-1").toAbsolutePath();
      assertThat(made.body()).contains("\"name\": \"nightly-1\"", "\"path\": \"" + path + "\"", "\"tables\": 1");
      assertThat(call("POST", url + "/v0/admin/snapshot?name=nightly-1").statusCode()).isEqualTo(409);

      HttpResponse<String> unnamed = call("POST", url + "/v0/admin/snapshot");
      assertThat(unnamed.statusCode()).as(unnamed.body()).isEqualTo(200);
      assertThat(unnamed.body()).containsPattern("\"name\": \"\\d{8}T\\d{6}\\.\\d{3}Z\"");

      HttpResponse<String> listed = call("GET", url + "/v0/admin/snapshots");
      assertThat(listed.statusCode()).isEqualTo(200);
      assertThat(listed.body()).contains("\"name\": \"nightly-1\"");
      assertThat(run("snapshot", "list", "--via", url)).as(err.toString()).isZero();
      assertThat(out.toString()).contains("nightly-1\t1 tables\t").contains(path.toString());

      assertThat(run("snapshot", "delete", "--name", "nightly-1", "--via", url)).as(err.toString()).isZero();
      assertThat(path).doesNotExist();
      assertThat(call("DELETE", url + "/v0/admin/snapshot?name=nightly-1").statusCode()).isEqualTo(404);
      err.getBuffer().setLength(0);
      assertThat(run("snapshot", "delete", "--name", "nightly-1", "--via", url)).isNotZero();
      assertThat(err.toString()).contains("404").contains("no snapshot nightly-1");
      assertThat(new EntityClient(url).getOrFail("k").status()).as("the store is untouched").isEqualTo(200);
    }
  }

  /**
   * {@code shale server --admin-secret-file}: the node takes only calls signed with that secret,
   * loopback included, and {@code shale snapshot --admin-secret-file} signs them; the option is
   * refused next to --cluster.
   */
  @Test
  void aNodeWithAnAdminSecretTakesOnlySignedCalls() throws Exception {
    Path secret = dir.resolve("admin.secret");
    SecretFile.write(secret, "admin-secret-for-the-test-0123456789".getBytes(StandardCharsets.UTF_8));
    Path data = dir.resolve("data");
    try (NodeProcess node = NodeProcess.start(FreePort.find(), data, List.of("-Xmx128m"),
        List.of("--admin-secret-file", secret.toString())).awaitReady(READY)) {
      assertThat(run("snapshot", "create", "--name", "unsigned", "--via", node.baseUrl())).isNotZero();
      assertThat(err.toString()).contains("403");
      assertThat(data.resolve("snapshots").resolve("unsigned")).doesNotExist();
      assertThat(run("snapshot", "create", "--name", "signed", "--via", node.baseUrl(), "--admin-secret-file", secret.toString()))
          .as(err.toString()).isZero();
      assertThat(data.resolve("snapshots").resolve("signed").resolve("LOCK")).doesNotExist();
      assertThat(Path.of(out.toString().strip())).isDirectory();
      assertThat(node.terminate(Duration.ofSeconds(10))).isZero();
    }
    err.getBuffer().setLength(0);
    assertThat(run("server", "--data", dir.resolve("other").toString(), "--cluster", "http://127.0.0.1:1",
        "--admin-secret-file", secret.toString())).isNotZero();
    assertThat(err.toString()).contains("--admin-secret-file is for a node without a cluster");
  }

  private static HttpResponse<String> call(String method, String url) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).method(method, HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private int run(String... args) {
    out.getBuffer().setLength(0);
    return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  private static void copyTree(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : files.toList()) Files.copy(f, to.resolve(f.getFileName()));
    }
  }
}
