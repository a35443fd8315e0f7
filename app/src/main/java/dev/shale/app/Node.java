package dev.shale.app;

import dev.shale.app.membership.RaftMembership;
import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.auth.LocalTokens;
import dev.shale.cluster.auth.TokenAuth;
import dev.shale.cluster.auth.TokenFile;
import dev.shale.cluster.auth.Tokens;
import dev.shale.cluster.Cluster;
import dev.shale.cluster.HintLimits;
import dev.shale.cluster.HintStore;
import dev.shale.cluster.HintedHandoff;
import dev.shale.cluster.handoff.Handoff;
import dev.shale.cluster.handoff.MapChanges;
import dev.shale.cluster.coordination.HintedWrites;
import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.server.NodeAdmin;
import dev.shale.server.tls.NodeTls;
import dev.shale.server.ServerOptions;
import dev.shale.server.ShaleServer;
import dev.shale.server.repair.RepairRunner;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Vfs;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * One running Shale node: the engine on its data directory, the HTTP server on top, and in a
 * multi-node cluster the hint store ({@code <data>/hints}) with its delivery. The only place that
 * makes real implementations and wires them together.
 */
final class Node implements AutoCloseable {
  /** The hint store's directory under the data directory; the engine ignores names it does not know. */
  static final String HINTS_DIR = "hints";
  private static final System.Logger LOG = System.getLogger(Node.class.getName());
  /** Where the handoff keeps the progress of its pulls ({@code <data>/handoff}; docs/format.md, "Handoff progress"). */
  static final String HANDOFF_DIR = "handoff";
  /** Under the data directory: the snapshots {@code POST /v0/admin/snapshot} makes (docs/operations.md). */
  static final String SNAPSHOTS_DIR = "snapshots";

  private final Path dataDir;
  private final Engine engine;
  private final ShaleServer server;
  private final @Nullable Cluster cluster; // null without --cluster
  private final @Nullable HintedHandoff handoff; // null unless the cluster has other nodes; owns the hint store
  private final @Nullable RaftMembership membership; // null: a node alone, or a fixed cluster (tests)
  private final @Nullable RemovalWatch removals; // null without a membership that changes

  private Node(Path dataDir, Engine engine, ShaleServer server, @Nullable Cluster cluster, @Nullable HintedHandoff handoff,
      @Nullable RaftMembership membership, @Nullable RemovalWatch removals) {
    this.membership = membership;
    this.removals = removals;
    this.dataDir = dataDir;
    this.engine = engine;
    this.server = server;
    this.cluster = cluster;
    this.handoff = handoff;
  }

  /** Opens the store (replaying its log) and starts serving; the node serves once this returns. */
  static Node start(Path dataDir, EngineOptions engineOptions, ServerOptions serverOptions) {
    return start(dataDir, engineOptions, serverOptions, null, HintLimits.DEFAULT);
  }

  /**
   * Like {@link #start(Path, EngineOptions, ServerOptions)}, as a node of {@code cluster} (null:
   * none), keeping the writes other replicas miss as hints within {@code hintLimits}.
   *
   * @throws StartupException also when the tombstone grace period does not outlive every hint
   *     ({@link HintLimits#checkTombstoneGrace}): a delete purged before an older value's hint
   *     arrives would be undone by it
   */
  static Node start(Path dataDir, EngineOptions engineOptions, ServerOptions serverOptions, @Nullable Cluster cluster,
      HintLimits hintLimits) {
    return start(dataDir, engineOptions, serverOptions, cluster, hintLimits, null);
  }

  /**
   * Like {@link #start(Path, EngineOptions, ServerOptions, Cluster, HintLimits)}, with this node's
   * Raft member of the cluster map, which the node then owns (closes); closed too if the start fails.
   */
  static Node start(Path dataDir, EngineOptions engineOptions, ServerOptions serverOptions, @Nullable Cluster cluster,
      HintLimits hintLimits, @Nullable RaftMembership membership) {
    return start(dataDir, engineOptions, serverOptions, cluster, hintLimits, membership, null);
  }

  /**
   * How a member moves data when the map changes: the listener its membership was started with,
   * to attach the handoff to once the node serves, and the handoff's {@code --stream-rate}.
   */
  record DataMovement(MapChanges changes, int bytesPerSecond) {}

  /**
   * Like {@link #start(Path, EngineOptions, ServerOptions, Cluster, HintLimits, RaftMembership)},
   * moving data on node changes as {@code movement} says (null: none moves).
   */
  static Node start(Path dataDir, EngineOptions engineOptions, ServerOptions serverOptions, @Nullable Cluster cluster,
      HintLimits hintLimits, @Nullable RaftMembership membership, @Nullable DataMovement movement) {
    return start(dataDir, engineOptions, serverOptions, cluster, hintLimits, membership, movement, TokenOptions.NONE);
  }

  /** Like the above, with the API tokens {@code tokens} asks for (kept with the membership's Raft group). */
  static Node start(Path dataDir, EngineOptions engineOptions, ServerOptions serverOptions, @Nullable Cluster cluster,
      HintLimits hintLimits, @Nullable RaftMembership membership, @Nullable DataMovement movement, TokenOptions tokens) {
    return start(dataDir, engineOptions, serverOptions, cluster, hintLimits, membership, movement, tokens, null);
  }

  /**
   * Like the above, serving TLS with {@code tls} (null: plaintext), which with peers has a
   * cluster CA: every connection to and from the other nodes runs over mutual TLS.
   */
  static Node start(Path dataDir, EngineOptions engineOptions, ServerOptions serverOptions, @Nullable Cluster cluster,
      HintLimits hintLimits, @Nullable RaftMembership membership, @Nullable DataMovement movement, TokenOptions tokens,
      @Nullable NodeTls tls) {
    try {
      return startServing(dataDir, engineOptions, serverOptions, cluster, hintLimits, membership, movement, null, tls, tokens);
    } catch (RuntimeException e) {
      if (membership != null) membership.close();
      throw e;
    }
  }

  /**
   * Like {@link #start(Path, EngineOptions, ServerOptions)}, a node without a cluster whose admin
   * calls must be signed with {@code adminSignatures}' secret (null: unsigned, from loopback
   * clients only).
   */
  static Node startAlone(Path dataDir, EngineOptions engineOptions, ServerOptions serverOptions, HintLimits hintLimits,
      @Nullable AdminSignatures adminSignatures) {
    return startAlone(dataDir, engineOptions, serverOptions, hintLimits, adminSignatures, null, TokenOptions.NONE);
  }

  /**
   * Like the above, serving TLS with {@code tls} (null: plaintext) and with the API tokens
   * {@code tokens} asks for (kept in {@code <data>/tokens}).
   */
  static Node startAlone(Path dataDir, EngineOptions engineOptions, ServerOptions serverOptions, HintLimits hintLimits,
      @Nullable AdminSignatures adminSignatures, @Nullable NodeTls tls, TokenOptions tokens) {
    return startServing(dataDir, engineOptions, serverOptions, null, hintLimits, null, null, adminSignatures, tls, tokens);
  }

  private static Node startServing(Path dataDir, EngineOptions engineOptions, ServerOptions serverOptions, @Nullable Cluster cluster,
      HintLimits hintLimits, @Nullable RaftMembership membership, @Nullable DataMovement movement,
      @Nullable AdminSignatures adminSignatures, @Nullable NodeTls tls, TokenOptions tokenOptions) {
    TokenAuth tokens = tokenAuth(dataDir, cluster, membership, tokenOptions, engineOptions.vfs());
    boolean replicated = cluster != null && cluster.takesPeers();
    if (replicated) {
      try {
        hintLimits.checkTombstoneGrace(engineOptions.tombstoneGraceMillis());
      } catch (IllegalArgumentException e) {
        throw new StartupException(e.getMessage() + " (lower --hint-max-age): a late hint of an older value would undo a "
            + "delete whose tombstone is gone", e);
      }
    }
    Engine engine;
    try {
      engine = Engine.open(dataDir, engineOptions);
    } catch (RuntimeException e) {
      throw new StartupException("cannot open the store in " + dataDir + ": " + e.getMessage(), e);
    }
    HintStore hints = null;
    ShaleServer server = null;
    try {
      if (replicated) hints = openHints(dataDir, hintLimits, engineOptions);
      // The coordinator keeps what peers miss in the store; the handoff delivers it through the
      // server, and hears from the coordinator which replicas answer.
      HintedWrites missed = hints == null ? null : new HintedWrites(hints);
      // Snapshots live beside the store's files; the engine's own scans skip directories.
      NodeAdmin admin = new NodeAdmin(dataDir.resolve(SNAPSHOTS_DIR), adminSignatures, tokens);
      server = ShaleServer.start(engine, engineOptions.env(), serverOptions, cluster, missed == null ? MissedWrites.NONE : missed, admin, tls);
      HintedHandoff handoff = null;
      if (hints != null && missed != null) {
        handoff = new HintedHandoff(hints, server.hintSender(), hintLimits);
        missed.deliverWith(handoff);
      }
      if (movement != null && membership != null && cluster != null && replicated) {
        // The server owns (closes) the handoff; the membership has told the listener nothing until now.
        Handoff moves = server.handoff(engine, dataDir.resolve(HANDOFF_DIR), movement.bytesPerSecond(), movement.changes(),
            engineOptions.env());
        movement.changes().attach(cluster.topology().self(), membership, moves);
      }
      RemovalWatch removals = null;
      if (membership != null && cluster != null && replicated) {
        // A member removed while it was down learns it from the members that refuse it.
        HintedHandoff delivering = handoff;
        removals = new RemovalWatch(cluster.topology().self(), membership, cluster.auth().adminSignatures(), tls, () -> {
          if (delivering != null) delivering.close();
        });
        server.onRefusedByPeer(removals::refusedBy);
      }
      return new Node(dataDir, engine, server, cluster, handoff, membership, removals);
    } catch (RuntimeException e) {
      if (server != null) server.close();
      if (hints != null) hints.close();
      engine.close();
      throw e instanceof StartupException s ? s : new StartupException(e.getMessage(), e);
    }
  }

  /**
   * The node's API tokens: a node alone keeps them in {@code <data>/tokens}, a member of a
   * cluster agreed with Raft in its Raft group; a fixed cluster (tests) keeps none.
   */
  private static @Nullable TokenAuth tokenAuth(Path dataDir, @Nullable Cluster cluster, @Nullable RaftMembership membership,
      TokenOptions options, Vfs vfs) {
    Tokens store;
    try {
      store = membership != null ? membership.tokens()
          : cluster == null ? LocalTokens.open(new TokenFile(vfs, dataDir.resolve(LocalTokens.FILE_NAME))) : null;
    } catch (RuntimeException e) {
      throw new StartupException("cannot read the API tokens: " + e.getMessage(), e);
    }
    if (store == null) {
      if (options.required()) throw new StartupException("--auth tokens needs a node alone or a cluster agreed with Raft");
      return null;
    }
    if (membership != null && options.required()) membership.requireTokensInBackground();
    else if (membership != null && store.current().required()) {
      LOG.log(System.Logger.Level.WARNING, "this cluster requires API tokens (a member was started with --auth tokens): "
          + "this node requires them too, whatever its own --auth");
    }
    return new TokenAuth(store, options.bootstrapSecret(), options.required());
  }

  private static HintStore openHints(Path dataDir, HintLimits limits, EngineOptions engineOptions) {
    Path dir = dataDir.resolve(HINTS_DIR);
    try {
      return HintStore.open(dir, limits, engineOptions.syncMode(), engineOptions.env());
    } catch (RuntimeException e) {
      throw new StartupException("cannot open the hint store in " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Repairs this node's ranges with its peers every {@code intervalMillis} (0: never; nothing without peers). */
  void repairEvery(long intervalMillis) {
    RepairRunner repairs = server.repairs();
    if (repairs != null) repairs.repairEvery(intervalMillis);
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
    if (cluster == null || !cluster.takesPeers()) return "";
    return ", one of " + cluster.map().members().size() + " nodes keeping each key on " + cluster.replicationFactor() + ": "
        + cluster.map().addresses();
  }

  /**
   * Stops serving (answering what was received, which may still add hints), then its Raft member,
   * then stops hint delivery and closes the hint store, then the engine, which fsyncs.
   */
  @Override
  public void close() {
    try {
      if (removals != null) removals.close();
      server.close();
      if (membership != null) membership.close();
    } finally {
      try {
        if (handoff != null) handoff.close();
      } finally {
        engine.close();
      }
    }
  }

  private static String hostForUrl(String host) {
    return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
  }
}
