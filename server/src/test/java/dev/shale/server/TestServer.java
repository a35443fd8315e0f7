package dev.shale.server;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A real server on a free loopback port over a real engine in a directory, and a client for it.
 * Tests may wrap the engine (to block or fail calls) before the server sees it.
 */
final class TestServer implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  final Engine engine;
  final ShaleServer server;
  final HttpClient client;

  private TestServer(Engine engine, ShaleServer server) {
    this.engine = engine;
    this.server = server;
    this.client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(TIMEOUT)
        .build();
  }

  static ServerOptions options() {
    return ServerOptions.defaults().withPort(0).withIoThreads(2).withWorkers(4);
  }

  static TestServer start(Path dir) {
    return start(dir, options(), UnaryOperator.identity());
  }

  static TestServer start(Path dir, ServerOptions options) {
    return start(dir, options, UnaryOperator.identity());
  }

  /** Starts a server whose engine is {@code wrap} applied to a real engine in {@code dir}. */
  static TestServer start(Path dir, ServerOptions options, UnaryOperator<Engine> wrap) {
    Engine engine = Engine.open(dir, EngineOptions.defaults());
    try {
      return new TestServer(engine, ShaleServer.start(wrap.apply(engine), Env.real(), options));
    } catch (RuntimeException e) {
      engine.close();
      throw e;
    }
  }

  /**
   * A node of a two-node cluster whose other node, {@code other}, does not run: tests play it
   * over the internode protocol with {@code secret}.
   */
  static TestServer withAbsentPeer(Path dir, int port, NodeAddress other, byte[] secret) {
    NodeAddress self = new NodeAddress("127.0.0.1", port);
    Cluster cluster = new Cluster(new Placement(new Topology(List.of(self, other), self)), InternalAuth.withSecret(secret, Env.real()::wallMillis), 2_000, 16);
    Engine engine = Engine.open(dir, EngineOptions.defaults());
    try {
      return new TestServer(engine, ShaleServer.start(engine, Env.real(), options().withPort(port), cluster));
    } catch (RuntimeException e) {
      engine.close();
      throw e;
    }
  }

  /** A client for a server already started on {@code engine}; closing it closes both. */
  static TestServer wrap(Engine engine, ShaleServer server) {
    return new TestServer(engine, server);
  }

  int port() {
    return server.port();
  }

  URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + port() + pathAndQuery);
  }

  /** The URI of the entity named {@code id}, percent-encoded as a form would. */
  URI entity(String id) {
    return uri("/v0/entity?id=" + java.net.URLEncoder.encode(id, StandardCharsets.UTF_8));
  }

  HttpResponse<byte[]> send(HttpRequest request) {
    try {
      return client.send(request, BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpResponse<byte[]> get(URI uri) {
    return send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build());
  }

  HttpResponse<byte[]> put(URI uri, byte[] value) {
    return send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).PUT(BodyPublishers.ofByteArray(value)).build());
  }

  /** A PUT whose body is sent chunked: the client does not say its length up front. */
  HttpResponse<byte[]> putChunked(URI uri, byte[] value) {
    BodyPublisher body = BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(value));
    return send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).PUT(body).build());
  }

  HttpResponse<byte[]> delete(URI uri) {
    return send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).DELETE().build());
  }

  HttpResponse<byte[]> method(String method, URI uri) {
    return send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).method(method, BodyPublishers.noBody()).build());
  }

  RawConnection connect() throws IOException {
    return new RawConnection(port());
  }

  static String text(HttpResponse<byte[]> response) {
    return new String(response.body(), StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    try {
      server.close();
    } finally {
      engine.close();
    }
  }
}
