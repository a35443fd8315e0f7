package dev.shale.app;

import dev.shale.cluster.Cluster;
import dev.shale.server.ServerOptions;
import dev.shale.server.ShaleServer;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import java.nio.file.Path;

/**
 * One running Shale node: the engine on its data directory and the HTTP server on top. The only
 * place that makes real implementations and wires them together.
 */
final class Node implements AutoCloseable {
  private final Path dataDir;
  private final Engine engine;
  private final ShaleServer server;
  private final Cluster cluster; // null without --cluster

  private Node(Path dataDir, Engine engine, ShaleServer server, Cluster cluster) {
    this.dataDir = dataDir;
    this.engine = engine;
    this.server = server;
    this.cluster = cluster;
  }

  /** Opens the store (replaying its log) and starts serving; the node serves once this returns. */
  static Node start(Path dataDir, EngineOptions engineOptions, ServerOptions serverOptions) {
    return start(dataDir, engineOptions, serverOptions, null);
  }

  /** Like {@link #start(Path, EngineOptions, ServerOptions)}, as a node of {@code cluster} (null: none). */
  static Node start(Path dataDir, EngineOptions engineOptions, ServerOptions serverOptions, Cluster cluster) {
    Engine engine;
    try {
      engine = Engine.open(dataDir, engineOptions);
    } catch (RuntimeException e) {
      throw new StartupException("cannot open the store in " + dataDir + ": " + e.getMessage(), e);
    }
    try {
      return new Node(dataDir, engine, ShaleServer.start(engine, serverOptions, cluster), cluster);
    } catch (RuntimeException e) {
      engine.close();
      throw new StartupException(e.getMessage(), e);
    }
  }

  int port() {
    return server.port();
  }

  /** What the startup log line says about the node. */
  String describe() {
    return "http://" + hostForUrl(server.localAddress().getHostString()) + ":" + port()
        + " (data " + dataDir.toAbsolutePath().normalize() + ", transport " + server.transport() + clusterText() + ")";
  }

  private String clusterText() {
    if (cluster == null || cluster.topology().isSingle()) return "";
    return ", one of " + cluster.topology().size() + " nodes: " + cluster.topology().nodes();
  }

  /** Stops serving (answering what was received), then closes the engine, which fsyncs. */
  @Override
  public void close() {
    try {
      server.close();
    } finally {
      engine.close();
    }
  }

  private static String hostForUrl(String host) {
    return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
  }
}
