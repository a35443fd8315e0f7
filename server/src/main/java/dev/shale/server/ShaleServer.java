package dev.shale.server;

import dev.shale.cluster.ClockOffsets;
import dev.shale.cluster.Cluster;
import dev.shale.cluster.HintNotDelivered;
import dev.shale.cluster.HintSender;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.coordination.Coordinator;
import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.cluster.coordination.ReplicaPlacement;
import dev.shale.cluster.coordination.ReplicaSets;
import dev.shale.cluster.coordination.ReplicationStats;
import dev.shale.cluster.handoff.ChangeProgress;
import dev.shale.cluster.handoff.Handoff;
import dev.shale.server.coordination.HintDeliveries;
import dev.shale.server.coordination.ReplicaCalls;
import dev.shale.server.http.AnswerBudget;
import dev.shale.server.http.BodyBudget;
import dev.shale.server.http.ConnectionEvent;
import dev.shale.server.http.SnapshotRoutes;
import dev.shale.server.metrics.NodeMetrics;
import dev.shale.server.peer.ClockProbes;
import dev.shale.server.peer.MapFence;
import dev.shale.server.peer.PeerDialer;
import dev.shale.server.peer.PeerEndpoint;
import dev.shale.server.peer.PeerLinks;
import dev.shale.server.peer.PeerRequestHandler;
import dev.shale.server.scan.HandoffPulls;
import dev.shale.server.repair.RepairRunner;
import dev.shale.server.scan.PeerScanServer;
import dev.shale.server.scan.ScanThreads;
import dev.shale.server.scan.Scans;
import dev.shale.server.tls.NodeTls;
import dev.shale.storage.Engine;
import dev.shale.storage.Env;
import dev.shale.storage.SuppressForbidden;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Shale's HTTP server: listens, serves the entity API on an {@link Engine}, and shuts down
 * gracefully. It does not own the engine: whoever opened it closes it, after {@link #close}.
 *
 * <p>Threads: one acceptor thread; {@code ioThreads} event loops (epoll when the native
 * transport loads, NIO otherwise) that parse requests and write responses; and the bounded
 * {@link StoragePool} that runs the storage calls (none with {@code workers = 0}: calls then run
 * on the event loops). See docs/design-server.md.
 *
 * <p>Thread safe.
 */
public final class ShaleServer implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ShaleServer.class.getName());
  // After the drain: how long the last steps (storage calls, event loops) may take each.
  private static final long STOP_STEP_MILLIS = 2_000;

  private final ServerOptions options;
  private final EventLoopGroup acceptGroup;
  private final EventLoopGroup ioGroup;
  private final @Nullable StoragePool pool; // null: storage calls run inline on the event loops (--workers 0)
  private final ScanThreads scanThreads;
  private final @Nullable PeerLinks client; // null without peers
  private final @Nullable ClockProbes clockProbes; // null without peers
  private final ReplicationStats stats;
  private final @Nullable ReplicaCalls replicaCalls; // null without peers
  private final @Nullable Peers peers; // null without peers
  private final AtomicReference<Handoff> handoff; // made by handoff() (empty until then), closed by close()
  private final @Nullable RepairRunner repairs; // null without peers
  private final ChannelGroup connections;
  private final AtomicBoolean draining;
  private final Channel listener;
  private final String transport;
  private final AtomicBoolean closed = new AtomicBoolean();

  private ShaleServer(
      ServerOptions options, EventLoopGroup acceptGroup, EventLoopGroup ioGroup, @Nullable StoragePool pool,
      ScanThreads scanThreads, @Nullable PeerLinks client, @Nullable ClockProbes clockProbes, ReplicationStats stats,
      @Nullable ReplicaCalls replicaCalls,
      @Nullable Peers peers, AtomicReference<Handoff> handoff, @Nullable RepairRunner repairs, ChannelGroup connections,
      AtomicBoolean draining, Channel listener, String transport) {
    this.options = options;
    this.acceptGroup = acceptGroup;
    this.ioGroup = ioGroup;
    this.pool = pool;
    this.scanThreads = scanThreads;
    this.client = client;
    this.clockProbes = clockProbes;
    this.stats = stats;
    this.replicaCalls = replicaCalls;
    this.peers = peers;
    this.handoff = handoff;
    this.repairs = repairs;
    this.connections = connections;
    this.draining = draining;
    this.listener = listener;
    this.transport = transport;
  }

  /**
   * Starts a server on {@code engine}, its time, threads (other than Netty's event loops) and
   * files from {@code env} (the one the app built for the node); it serves once this returns.
   *
   * @throws UncheckedIOException if it cannot listen on the host and port
   */
  public static ShaleServer start(Engine engine, Env env, ServerOptions options) {
    return start(engine, env, options, null);
  }

  /** {@link #start(Engine, Env, ServerOptions, Cluster, MissedWrites)} without hints. */
  public static ShaleServer start(Engine engine, Env env, ServerOptions options, @Nullable Cluster cluster) {
    return start(engine, env, options, cluster, MissedWrites.NONE);
  }

  /**
   * Starts a node of {@code cluster} on {@code engine}: a client's request is coordinated over
   * its key's replicas, reached over the same event loops, and writes a replica missed go to
   * {@code missed}; it serves once this returns. A null cluster is a node started without one
   * (it refuses internal requests).
   *
   * @throws UncheckedIOException if it cannot listen on the host and port
   */
  public static ShaleServer start(
      Engine engine, Env env, ServerOptions options, @Nullable Cluster cluster, MissedWrites missed) {
    return start(engine, env, options, cluster, missed, NodeAdmin.NONE);
  }

  /**
   * Like {@link #start(Engine, Env, ServerOptions, Cluster, MissedWrites)}, with the snapshots and the
   * admin secret of {@code admin}.
   */
  public static ShaleServer start(Engine engine, Env env, ServerOptions options, @Nullable Cluster cluster,
      MissedWrites missed, NodeAdmin admin) {
    return start(engine, env, options, cluster, missed, admin, null);
  }

  /**
   * Like {@link #start(Engine, Env, ServerOptions, Cluster, MissedWrites, NodeAdmin)}, serving TLS on
   * the port with {@code tls} (null: plaintext), whose files are checked for a new certificate
   * every {@link #TLS_POLL_MILLIS}. A node with peers needs {@code tls} with a cluster CA (or
   * none): its connections to and from its peers then run over mutual TLS too.
   */
  public static ShaleServer start(Engine engine, Env env, ServerOptions options, @Nullable Cluster cluster,
      MissedWrites missed, NodeAdmin admin, @Nullable NodeTls tls) {
    // Invariant: a TLS port of a node with peers has a cluster CA. Without one its peers would
    // come in clear past the TLS port (TlsSniffer hands a peer preface on to the handshake, which
    // refuses it only under a cluster CA).
    if (tls != null && !tls.betweenNodes() && cluster != null && cluster.takesPeers()) {
      throw new IllegalArgumentException("a node with peers serves TLS only with a cluster CA (--tls-cluster-ca)");
    }
    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    Class<? extends ServerChannel> channelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    int ioThreads = options.ioThreads() > 0 ? options.ioThreads() : Runtime.getRuntime().availableProcessors();
    EventLoopGroup acceptGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("shale-accept"), io);
    EventLoopGroup ioGroup = new MultiThreadIoEventLoopGroup(ioThreads, new DefaultThreadFactory("shale-io"), io);
    StoragePool pool = options.workers() > 0 ? new StoragePool(options.workers(), options.queueSize(), env) : null;
    ScanThreads scanThreads = new ScanThreads(ScanThreads.DEFAULT_THREADS, options.maxScans(), env);
    ChannelGroup connections = new DefaultChannelGroup("shale-connections", GlobalEventExecutor.INSTANCE);
    AtomicBoolean draining = new AtomicBoolean();
    BodyBudget budget = new BodyBudget(options.bodyBudgetBytes(Runtime.getRuntime().maxMemory()));
    AnswerBudget answerBudget = new AnswerBudget(options.answerBudgetBytes(Runtime.getRuntime().maxMemory()));
    EntityService service = new EntityService(engine, env);
    ReplicationStats stats = new ReplicationStats(missed);
    NodeMetrics metrics = options.metrics() ? NodeMetrics.on(engine, env) : NodeMetrics.OFF;
    metrics.watchMemory(options.memoryBytes(), answerBudget, scanThreads.views());
    metrics.watchMemoryReads(service.memoryReads());
    // Without peers (no cluster, or a cluster of one) every request is served here: no client,
    // no replica calls, no coordinator.
    PeerLinks client = null;
    // A greeting to a peer that is up ends within milliseconds; one to a peer that does not answer
    // would take the whole connect or handshake timeout, which a start need not wait for.
    long greetMillis = cluster == null ? 0 : Math.min(cluster.forwardTimeoutMillis(), MAX_GREETING_WAIT_MILLIS);
    PeerDialer dialer = null;
    PeerEndpoint peers = null;
    ReplicaCalls replicaCalls = null;
    Coordinator coordinator = null;
    Peers handoffPeers = null;
    AtomicReference<Handoff> handoff = new AtomicReference<>();
    RepairRunner repairs = null;
    ClockOffsets clockOffsets = null;
    ClockProbes clockProbes = null;
    if (cluster != null && cluster.takesPeers()) {
      int maxValue = options.maxValueSizeBytes();
      dialer = new PeerDialer(cluster.topology().self(), cluster.membership(), cluster.auth(), tls,
          epoll ? EpollSocketChannel.class : NioSocketChannel.class, maxValue, cluster.forwardTimeoutMillis());
      client = new PeerLinks(cluster.topology().peers(), ioGroup, dialer, cluster.forwardTimeoutMillis(), cluster.maxPendingPerPeer(),
          metrics.peerTimers(), env);
      // Repairs follow the map as it is now too (Cluster.livePlacement), as requests do.
      Cluster live = cluster;
      // Replica requests addressed with a map older than this node's placement are refused (MapFence).
      MapFence fence = new MapFence(live::map, env);
      // This node's clock against the members' (docs/design.md, "Clock offsets"), from the wall
      // clock its versions are made from.
      clockOffsets = new ClockOffsets(cluster.topology().self().id(), () -> live.map().addresses(), engine.clock()::wallMillis,
          env::nanoTime, ClockOffsets.MAX_OFFSET_MILLIS);
      ClockOffsets clock = clockOffsets;
      clockProbes = new ClockProbes(cluster.topology().self(), () -> live.map().addresses(), client, ioGroup, clock, env);
      PeerScanServer peerScans = new PeerScanServer(service, scanThreads, live::livePlacement, fence);
      peers = new PeerEndpoint(cluster.topology().self(), cluster.membership(), cluster.auth(), tls, maxValue,
          sender -> new PeerRequestHandler(sender, service, pool, answerBudget, peerScans, fence, clock, maxValue),
          client::peerAuthenticated);
      replicaCalls = new ReplicaCalls(cluster.topology().self(), service, pool, client, missed, fence, () -> live.map().version());
      // One rule for every request's targets (ReplicaPlacement): a node whose map is agreed with
      // Raft asks the map as it is now (members joining or leaving count); a fixed cluster follows
      // the handoff's own seam (ReplicaSets), which the handoff tells of a change by hand.
      ReplicaSets replicaSets = cluster.membership().changes() ? null : new ReplicaSets(cluster.placement());
      ReplicaPlacement placement = replicaSets != null ? replicaSets : ReplicaPlacement.following(live::map);
      coordinator = new Coordinator(placement, replicaCalls, engine.clock(), missed, stats, cluster.readSpeculationMillis());
      handoffPeers = new Peers(cluster.topology().self(), replicaSets, new HandoffPulls(dialer, ioGroup, cluster.forwardTimeoutMillis(), env),
          dialer);
      repairs = RepairRunner.of(cluster, service, replicaCalls, dialer, ioGroup, env);
    }
    PeerLinks links = client;
    RepairRunner repairRunner = repairs;
    metrics.watchCluster(stats, links == null ? Map::of : links::openConnections,
        repairRunner == null ? NodeMetrics.RepairCounts.NONE : new NodeMetrics.RepairCounts() {
          @Override
          public long runs() {
            return repairRunner.runs();
          }

          @Override
          public long recordsExchanged() {
            return repairRunner.recordsExchanged();
          }
        }, clockOffsets);
    ServerBootstrap bootstrap = new ServerBootstrap()
        .group(acceptGroup, ioGroup)
        .channel(channelType)
        .option(ChannelOption.SO_BACKLOG, 1024)
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.TCP_NODELAY, true)
        // A client that shuts down its sending side still reads: answer what it sent, then
        // close (StrictServerCodec.InputEnded), rather than close at its end of input.
        .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
        .childHandler(new ServerInitializer(
            env, options, service, pool, budget, answerBudget, connections, draining::get, cluster, coordinator, clockOffsets, stats,
            () -> handoff.get() == null ? List.of() : handoff.get().progress(), new Scans(service, scanThreads, cluster, dialer), peers,
            repairs, metrics, admin, admin.snapshots() == null ? null : new SnapshotRoutes(engine, admin.snapshots(), env), tls));
    if (tls != null) {
      bootstrap.childAttr(NodeTls.OF_CONNECTION, tls);
      // On the acceptor's loop, mostly idle: a poll reads three files' attributes, and a reload
      // (rare) reads three small files and builds a context, a few milliseconds.
      acceptGroup.scheduleWithFixedDelay(() -> {
        tls.reloadIfChanged();
      }, TLS_POLL_MILLIS, TLS_POLL_MILLIS, TimeUnit.MILLISECONDS);
    }
    try {
      Channel listener = bootstrap.bind(options.host(), options.port()).syncUninterruptibly().channel();
      // Greets every peer, and returns once they know this node is up: a restarted node's
      // handshakes end the peers' down marks of it (bounded by the connect timeout).
      if (client != null) client.greetAll(greetMillis);
      // Then measures the clock against theirs: it serves no client before it has (ClockOffsets).
      if (clockProbes != null) clockProbes.start(greetMillis);
      return new ShaleServer(options, acceptGroup, ioGroup, pool, scanThreads, client, clockProbes, stats, replicaCalls, handoffPeers, handoff, repairs,
          connections, draining, listener, (epoll ? "epoll" : "nio") + ", " + ioThreads + (ioThreads == 1 ? " event loop" : " event loops"));
    } catch (Exception e) {
      // syncUninterruptibly() rethrows the socket's checked exception unwrapped, hence Exception.
      if (handoffPeers != null) handoffPeers.pulls().close();
      if (repairs != null) repairs.close();
      stopThreads(acceptGroup, ioGroup, pool, scanThreads);
      throw cannotListen(options, e);
    }
  }

  private static RuntimeException cannotListen(ServerOptions options, Exception e) {
    String what = "cannot listen on " + options.host() + ":" + options.port() + ": ";
    return switch (e) {
      case BindException b -> new UncheckedIOException(what + b.getMessage() + " (is another process using the port?)", b);
      case IOException io -> new UncheckedIOException(what + io.getMessage(), io);
      default -> new IllegalStateException(what + e, e);
    };
  }

  /**
   * How the hinted handoff delivers a hint from this node: through the replica calls, with the
   * hint's original version (see {@link HintDeliveries}); without peers every delivery fails, as
   * there is no one to deliver to.
   */
  public HintSender hintSender() {
    if (replicaCalls == null) {
      return hint -> CompletableFuture.failedFuture(new HintNotDelivered("this node has no peers"));
    }
    return new HintDeliveries(replicaCalls, ioGroup::next, stats, closed::get);
  }

  /**
   * This node's handoff, which the membership tells of node changes: it routes writes to the old
   * and new replicas while a change is pending and pulls into {@code engine} (the server's) the
   * ranges this node gains, keeping its progress in {@code directory} ({@code <data>/handoff}),
   * at most {@code bytesPerSecond}, its clock, thread and files from {@code env}. Made once; closed by {@link #close}.
   *
   * @throws IllegalStateException on a node without peers (it has nothing to hand off), or on a second call
   */
  public synchronized Handoff handoff(Engine engine, Path directory, int bytesPerSecond, ChangeProgress received, Env env) {
    if (peers == null) throw new IllegalStateException("a node without peers has no handoff");
    if (handoff.get() != null) throw new IllegalStateException("the handoff is made once");
    Handoff made = new Handoff(peers.self(), peers.replicaSets(), engine, peers.pulls(), directory, bytesPerSecond, received, env);
    handoff.set(made);
    return made;
  }

  /** What a handoff needs of a node with peers, and how it dials them. */
  private record Peers(NodeAddress self, @Nullable ReplicaSets replicaSets, HandoffPulls pulls, PeerDialer dialer) {}

  /**
   * From now on tells {@code listener} (on an event loop: it must not block) of every peer that
   * refuses this node's handshake; a member refuses a node its cluster map does not have. Nothing
   * on a node without peers.
   */
  public void onRefusedByPeer(Consumer<NodeAddress> listener) {
    if (peers != null) peers.dialer().onRefused(listener);
  }

  /**
   * This node's anti-entropy repairs: null without peers. The caller starts the background ones
   * ({@link RepairRunner#repairEvery}); an operator's come through {@code POST /v0/admin/repair}.
   */
  public @Nullable RepairRunner repairs() {
    return repairs;
  }

  /** The address the server listens on (with the real port when the options said 0). */
  public InetSocketAddress localAddress() {
    return (InetSocketAddress) listener.localAddress();
  }

  public int port() {
    return localAddress().getPort();
  }

  /** Storage calls waiting for a worker right now (0 without a pool). */
  public int queuedStorageCalls() {
    return pool == null ? 0 : pool.queued();
  }

  /** How often a TLS node looks at its certificate's files for a new one. */
  static final long TLS_POLL_MILLIS = 1_000;

  /** How long a start waits at most for its greetings to the peers to end (see {@link PeerLinks#greetAll}). */
  static final long MAX_GREETING_WAIT_MILLIS = 1_000;

  /** The connections this node accepted that are open now, clients' and peers' alike. */
  public int openConnections() {
    return connections.size();
  }

  /** The transport in use and its event loops ("epoll, 2 event loops"), for the startup log line. */
  public String transport() {
    return transport;
  }

  /**
   * Stops gracefully, and returns once every thread of the server has stopped: stops
   * accepting, lets every connection get the answers to the requests it has sent (for up to
   * {@code shutdownTimeoutMillis}), then closes the connections, the worker pool and the event
   * loops. Requests that arrive meanwhile are not read. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) return;
    // First: a repair under way waits for peers and reads the engine; an operator's queued
    // repair fails, so its connection owes no answer to the drain below.
    if (repairs != null) repairs.close();
    listener.close().syncUninterruptibly();
    if (clockProbes != null) clockProbes.close();
    drainConnections();
    // After the drain: replica requests still in flight then belong to cut connections (or
    // are read repairs and hint deliveries, which a later read or delivery redoes).
    if (client != null) client.close();
    // Before the engine closes: a pull stops between batches and resumes at the next start.
    synchronized (this) {
      Handoff made = handoff.get();
      if (made != null) made.close();
    }
    if (peers != null) peers.pulls().close();
    stopThreads(acceptGroup, ioGroup, pool, scanThreads);
  }

  @SuppressForbidden(reason = "waits on Netty's close futures of the connections, the adapter's shutdown")
  private void drainConnections() {
    draining.set(true);
    for (Channel connection : connections) {
      connection.pipeline().fireUserEventTriggered(ConnectionEvent.FINISH);
    }
    boolean drained = connections.newCloseFuture().awaitUninterruptibly(options.shutdownTimeoutMillis());
    if (!drained) {
      LOG.log(System.Logger.Level.WARNING, () -> connections.size()
          + " connections still had unanswered requests after " + options.shutdownTimeoutMillis() + " ms; closing them");
      connections.close().awaitUninterruptibly(STOP_STEP_MILLIS);
    }
  }

  @SuppressForbidden(reason = "waits on Netty's event loops to terminate, the adapter's shutdown")
  private static void stopThreads(
      EventLoopGroup acceptGroup, EventLoopGroup ioGroup, @Nullable StoragePool pool, ScanThreads scanThreads) {
    // Storage calls first: their answers go back through the event loops.
    if (pool != null && !pool.shutdown(STOP_STEP_MILLIS)) {
      LOG.log(System.Logger.Level.WARNING, "storage calls were still running after " + STOP_STEP_MILLIS + " ms");
    }
    // Scans' pulls too; the connections are closed by now, so every scan's iterator is released
    // or being released (a refused close task closes inline), before the caller closes the engine.
    if (!scanThreads.shutdown(STOP_STEP_MILLIS)) {
      LOG.log(System.Logger.Level.WARNING, "scan pulls were still running after " + STOP_STEP_MILLIS + " ms");
    }
    acceptGroup.shutdownGracefully(0, STOP_STEP_MILLIS, TimeUnit.MILLISECONDS);
    ioGroup.shutdownGracefully(0, STOP_STEP_MILLIS, TimeUnit.MILLISECONDS);
    acceptGroup.terminationFuture().awaitUninterruptibly(STOP_STEP_MILLIS);
    ioGroup.terminationFuture().awaitUninterruptibly(STOP_STEP_MILLIS);
  }
}
