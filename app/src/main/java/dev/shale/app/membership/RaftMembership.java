package dev.shale.app.membership;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.auth.TokenChange;
import dev.shale.cluster.auth.TokenChangeRefused;
import dev.shale.cluster.auth.TokenFile;
import dev.shale.cluster.auth.TokenSet;
import dev.shale.cluster.auth.TokenSetCodec;
import dev.shale.cluster.auth.Tokens;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import dev.shale.cluster.membership.Membership;
import dev.shale.cluster.membership.TopologyChange;
import dev.shale.cluster.membership.TopologyChangeCodec;
import dev.shale.cluster.membership.TopologyChangeRefused;
import dev.shale.cluster.membership.TopologyListener;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.ReconfigurationInProgressException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.jspecify.annotations.Nullable;

/**
 * This node's member of the Raft group that holds the cluster map, and the orchestration of joins
 * and removals: the map change, then the matching change of the Raft group, so that the members of
 * the map are the members of the group.
 *
 * <p>Joins and removals run one at a time on this node's "shale-membership" thread, off the
 * callers' threads (an HTTP event loop must not wait for Raft); across nodes they are serialised
 * by the map itself (at most one member in transition: {@link ClusterMap#apply}).
 *
 * <p>Thread safe.
 */
public final class RaftMembership implements Membership, AutoCloseable {
  // The files of the map, the tokens and the snapshots. The real filesystem: Ratis, whose log
  // sits beside them, stays outside any simulation (issue 33), so the membership's files do too.
  private static final Vfs MEMBERSHIP_FILES = Vfs.real();

  /** The Raft storage's directory under the data directory. */
  public static final String RAFT_DIR = "raft";
  /** The cluster's API tokens as this node applied them last, under the Raft directory (docs/format.md, "API tokens"). */
  static final String TOKENS_FILE = "tokens";
  /** The one Raft group of a Shale cluster. Do not change: it names the group's directory in stored data. */
  static final RaftGroupId GROUP_ID = RaftGroupId.valueOf(UUID.nameUUIDFromBytes("shale cluster map".getBytes(StandardCharsets.UTF_8)));
  /** How long a change may take to be agreed and applied here before the caller hears it failed. */
  static final long CHANGE_TIMEOUT_MILLIS = 30_000;
  private static final System.Logger LOG = System.getLogger(RaftMembership.class.getName());
  private static final int RECONFIGURATION_TRIES = 40;
  private static final long RECONFIGURATION_RETRY_MILLIS = 250;

  private final NodeAddress self;
  private final RaftProperties properties;
  // The transport's TLS (every Raft client made here takes it), or none: in clear.
  private final Parameters parameters;
  private final @Nullable RaftTls tls;
  private final RaftServer server;
  private final ClusterMapStateMachine machine;
  private final boolean completesAtOnce;
  private final ExecutorService changes;
  // The map the node starts serving with (stored, bootstrapped or joined), until it applies a newer one.
  private volatile ClusterMap assumed;
  // The token set stored when the node started, served until the node applies a newer one.
  private final TokenSet storedTokens;
  private final Tokens tokens = new RaftTokens();
  // Confined to the changes thread: the client of the group as it was last seen, remade when it changes.
  private @Nullable RaftClient client;
  private @Nullable RaftGroup clientGroup;

  private RaftMembership(NodeAddress self, RaftProperties properties, Parameters parameters, @Nullable RaftTls tls, RaftServer server,
      ClusterMapStateMachine machine, boolean completesAtOnce, ClusterMap assumed, TokenSet storedTokens) {
    this.self = self;
    this.storedTokens = storedTokens;
    this.assumed = assumed;
    this.properties = properties;
    this.parameters = parameters;
    this.tls = tls;
    this.server = server;
    this.machine = machine;
    this.completesAtOnce = completesAtOnce;
    this.changes = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "shale-membership");
      t.setDaemon(true);
      return t;
    });
  }

  /** How a node's Raft server starts: over the group it had, or as a new member of one. */
  public sealed interface Start {
    /** A restart: the group is the one stored under {@code <data>/raft}, the map {@code stored} its last applied. */
    record Recover(ClusterMap stored) implements Start {}

    /** A new cluster: these members, all normal; every one of them starts the same way. */
    record Bootstrap(List<Member> members, int replicationFactor) implements Start {}

    /** A new member of a running cluster: the members add it to the group. */
    record Join() implements Start {}
  }

  /** Whether {@code dataDir} holds a Raft group already (the node was a cluster member). */
  public static boolean hasStoredGroup(Path dataDir) {
    return Files.isDirectory(dataDir.resolve(RAFT_DIR).resolve(GROUP_ID.getUuid().toString()));
  }

  /** The map this node applied last before it stopped, if it has one. */
  public static Optional<ClusterMap> storedMap(Path dataDir) {
    return new MapFile(MEMBERSHIP_FILES, dataDir.resolve(RAFT_DIR)).read();
  }

  /** {@link #start(Path, NodeAddress, String, int, Start, TopologyListener, boolean, RaftTls)} in clear: no TLS. */
  public static RaftMembership start(Path dataDir, NodeAddress self, String raftHost, int raftPort, Start start,
      TopologyListener listener, boolean completesAtOnce) {
    return start(dataDir, self, raftHost, raftPort, start, listener, completesAtOnce, null);
  }

  /**
   * Starts this node's Raft server, listening on {@code raftHost:raftPort}.
   *
   * @param tls mutual TLS for the server and its clients (every member must have it then); null: in clear
   * @param completesAtOnce true when no data movement is wired: a join becomes normal and a leave
   *     a removal as soon as it is committed (nothing is streamed)
   * @throws UncheckedIOException when the server cannot start (its port taken, its storage unreadable)
   */
  public static RaftMembership start(Path dataDir, NodeAddress self, String raftHost, int raftPort, Start start,
      TopologyListener listener, boolean completesAtOnce, @Nullable RaftTls tls) {
    Path raftDir = dataDir.resolve(RAFT_DIR);
    RaftProperties properties = RaftSettings.properties(raftDir, raftHost, raftPort);
    TokenFile tokenFile = new TokenFile(MEMBERSHIP_FILES, raftDir.resolve(TOKENS_FILE));
    // A restarted member enforces the tokens it had at once, before Raft replays its log.
    TokenSet storedTokens = start instanceof Start.Recover ? tokenFile.read().orElse(TokenSet.EMPTY) : TokenSet.EMPTY;
    Parameters parameters = tls == null ? new Parameters() : tls.parameters();
    ClusterMapStateMachine machine = new ClusterMapStateMachine(new RemovalNotice(self, listener), new MapFile(MEMBERSHIP_FILES, raftDir), tokenFile);
    RaftGroup group = switch (start) {
      case Start.Recover ignored -> RaftGroup.valueOf(GROUP_ID);
      case Start.Bootstrap b -> RaftGroup.valueOf(GROUP_ID, peers(b.members()));
      // An empty configuration: the leader brings the group's log to it once the members add it
      // (setConfiguration); until then it stands for no election.
      case Start.Join ignored -> RaftGroup.valueOf(GROUP_ID);
    };
    try {
      Files.createDirectories(raftDir);
      requireFreePort(raftHost, raftPort);
      RaftServer server = RaftServer.newBuilder()
          .setServerId(peerId(self))
          .setGroup(group)
          .setStateMachine(machine)
          .setProperties(properties)
          .setParameters(parameters)
          .setOption(start instanceof Start.Recover ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
          .build();
      server.start();
      ClusterMap assumed = switch (start) {
        case Start.Recover r -> r.stored();
        case Start.Bootstrap b -> new ClusterMap(0, b.members(), b.replicationFactor());
        case Start.Join ignored -> ClusterMap.EMPTY;
      };
      RaftMembership membership = new RaftMembership(self, properties, parameters, tls, server, machine, completesAtOnce, assumed,
          storedTokens);
      if (start instanceof Start.Bootstrap b) membership.bootstrapInBackground(b);
      return membership;
    } catch (IOException e) {
      if (portInUse(e)) {
        throw new UncheckedIOException("cannot start the Raft server on " + raftHost + ":" + raftPort + ": Raft port " + raftPort
            + " is in use by another process. Free it, or move it: --raft-port with --join; a --cluster bootstrap derives "
            + "every node's Raft port from its --port (README, \"Running a cluster\"), so start this node on another --port", e);
      }
      throw new UncheckedIOException("cannot start the Raft server on " + raftHost + ":" + raftPort + ": " + e.getMessage(), e);
    }
  }

  /**
   * Fails with a BindException when {@code host:port} is taken. Ratis's gRPC server does not
   * report a failed bind to its caller: it logs it and calls System.exit(1) (ExitUtils.terminate),
   * so the node would stop without saying which option to change. Checked just before the server
   * binds; a port taken in between still stops the node, with Ratis's line in the log.
   */
  private static void requireFreePort(String host, int port) throws IOException {
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true); // as the server's own socket: a closed connection's TIME_WAIT does not count
      probe.bind(new InetSocketAddress(host, port));
    }
  }

  // Ratis's shaded Netty reports a taken port as its own NativeIoException, not a BindException:
  // the kernel's message (strerror(EADDRINUSE)) is what both carry.
  private static boolean portInUse(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException || (t.getMessage() != null && t.getMessage().contains("Address already in use"))) return true;
    }
    return false;
  }

  @Override
  public boolean changes() {
    return true;
  }

  /**
   * The map this node has applied last; until it has applied one newer than the map it started
   * with, that one. (After a restart, Raft replays the log only once a leader tells it the commit
   * index, and a new cluster's map is empty until its bootstrap is applied: meanwhile the node
   * serves, and takes its peers, by the members it knows.)
   */
  @Override
  public ClusterMap current() {
    ClusterMap applied = machine.current();
    ClusterMap start = assumed;
    return applied.version() > start.version() ? applied : start;
  }

  /** Serves with {@code map} (the one a join answered) until this node has applied a newer one. */
  public void assume(ClusterMap map) {
    assumed = map;
  }

  /** Also makes the Raft group follow a join or a removal, whoever asks for it (the handoff's removals too). */
  @Override
  public CompletableFuture<ClusterMap> change(TopologyChange change) {
    return CompletableFuture.supplyAsync(() -> apply(change), changes);
  }

  /**
   * Adds {@code address} to the map as joining and to the Raft group; without data movement it is
   * then marked normal. Asking again for a member still joining picks up where the last try stopped.
   */
  @Override
  public CompletableFuture<ClusterMap> join(NodeAddress address, String raftAddress) {
    return CompletableFuture.supplyAsync(() -> {
      probe(address, raftAddress);
      ClusterMap joined = apply(new TopologyChange.Join(address, raftAddress));
      return completesAtOnce ? apply(new TopologyChange.MarkNormal(address)) : joined;
    }, changes);
  }

  /**
   * With TLS, refuses a joining node whose Raft port the group could not reach: no certificate of
   * the cluster CA naming its host. The map is left as it was. (A member asking again for itself,
   * already in the map, is checked the same way: the group must reach it as well.)
   */
  private void probe(NodeAddress address, String raftAddress) {
    RaftTls checked = tls;
    if (checked == null) return;
    try {
      checked.probe(raftAddress);
    } catch (IOException | RuntimeException e) {
      throw new TopologyChangeRefused("cannot add " + address + ": its Raft port " + raftAddress + " is not reachable over the cluster's "
          + "mutual TLS (" + e.getMessage() + "); give it a node certificate of the cluster CA naming that host");
    }
  }

  /**
   * Removes {@code address} from the map and the Raft group. It leaves first: a live member hands
   * its copies over while it is leaving, a {@code dead} one's are rebuilt from the other replicas;
   * the data movement removes it once they are. Without data movement a live member is removed
   * as soon as it is leaving, a dead one at once.
   */
  @Override
  public CompletableFuture<ClusterMap> remove(NodeAddress address, boolean dead) {
    return CompletableFuture.supplyAsync(() -> {
      if (!completesAtOnce) return apply(dead ? new TopologyChange.MarkDead(address) : new TopologyChange.MarkLeaving(address));
      if (!dead) apply(new TopologyChange.MarkLeaving(address));
      return apply(new TopologyChange.Remove(address));
    }, changes);
  }

  /**
   * Proposes {@code change} and, for a join or a removal, then makes the Raft group's members the
   * map's: the map first, so that of two racing joins the map refuses one before either touches
   * the group.
   */
  private ClusterMap apply(TopologyChange change) {
    ClusterMap map = propose(change);
    if (change instanceof TopologyChange.Join || change instanceof TopologyChange.Remove) reconfigure(map);
    return map;
  }

  /** Proposes a change and waits until it is applied here: the map it made, or why it was refused. */
  private ClusterMap propose(TopologyChange change) {
    return awaitApplied(agree(TopologyChangeCodec.encode(change), TopologyChangeRefused::new));
  }

  /**
   * The cluster's API tokens, agreed with Raft: a change is a log entry every member applies in
   * order ({@link ClusterMapStateMachine}), answered once applied here.
   */
  public Tokens tokens() {
    return tokens;
  }

  /**
   * Records in the cluster's token set that its members require tokens (this node was started
   * with {@code --auth tokens}), so that every member enforces them: proposed until agreed (or
   * found so already), in the background, as a bootstrap is.
   */
  public void requireTokensInBackground() {
    changes.execute(() -> {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (!tokens.current().required() && System.nanoTime() < deadline && !changes.isShutdown()) {
        try {
          awaitApplied(agree(TokenSetCodec.encode(new TokenChange.Require()), TokenChangeRefused::new));
        } catch (TokenChangeRefused e) {
          return; // another member recorded it first
        } catch (RuntimeException e) {
          LOG.log(Level.DEBUG, () -> "requiring tokens not agreed yet, retrying: " + e.getMessage());
        }
      }
    });
  }

  private final class RaftTokens implements Tokens {
    @Override
    public TokenSet current() {
      TokenSet applied = machine.tokens();
      TokenSet stored = storedTokens;
      return applied.version() >= stored.version() ? applied : stored;
    }

    @Override
    public CompletableFuture<TokenSet> change(TokenChange change) {
      return CompletableFuture.supplyAsync(() -> {
        awaitApplied(agree(TokenSetCodec.encode(change), TokenChangeRefused::new));
        return current();
      }, changes);
    }
  }

  /**
   * Proposes a log entry of {@code data} and returns its index once agreed; a state machine's
   * refusal is thrown as {@code refused} makes it.
   */
  private long agree(byte[] data, Function<String, RuntimeException> refused) {
    RaftClientReply reply;
    try {
      reply = client().io().send(Message.valueOf(ByteString.copyFrom(data)));
    } catch (IOException e) {
      throw new MembershipUnavailable("the cluster did not agree on the change (" + e.getMessage() + ")", e);
    }
    if (!reply.isSuccess()) {
      throw new MembershipUnavailable("the cluster did not agree on the change (" + reply.getException() + ")", reply.getException());
    }
    String answer = reply.getMessage().getContent().toStringUtf8();
    if (answer.startsWith(ClusterMapStateMachine.REFUSED)) {
      throw refused.apply(answer.substring(ClusterMapStateMachine.REFUSED.length()));
    }
    return reply.getLogIndex();
  }

  /** Makes the Raft group's members the map's members. */
  private void reconfigure(ClusterMap map) {
    List<RaftPeer> peers = peers(map.members());
    for (int attempt = 1; ; attempt++) {
      try {
        RaftClientReply reply = client().admin().setConfiguration(peers);
        if (reply.isSuccess()) return;
        if (!(reply.getException() instanceof ReconfigurationInProgressException) || attempt == RECONFIGURATION_TRIES) {
          throw new MembershipUnavailable("the Raft group did not take the members of map version " + map.version()
              + " (" + reply.getException() + "); ask again to retry", reply.getException());
        }
      } catch (IOException e) {
        throw new MembershipUnavailable("the Raft group did not take the members of map version " + map.version()
            + " (" + e.getMessage() + "); ask again to retry", e);
      }
      pause(RECONFIGURATION_RETRY_MILLIS); // another reconfiguration (a removal's, say) is finishing
    }
  }

  private ClusterMap awaitApplied(long index) {
    try {
      return machine.applied(index).get(CHANGE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new MembershipUnavailable("the change was agreed but not applied here within " + CHANGE_TIMEOUT_MILLIS + " ms", e);
    } catch (ExecutionException e) {
      throw new CompletionException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MembershipUnavailable("interrupted while waiting for the change", e);
    }
  }

  /**
   * Every node of a new cluster proposes the same bootstrap; the first one applied makes the map,
   * the others are refused as "bootstrapped already", which is what they wanted.
   */
  private void bootstrapInBackground(Start.Bootstrap b) {
    changes.execute(() -> {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (machine.current().isEmpty() && System.nanoTime() < deadline && !changes.isShutdown()) {
        try {
          propose(new TopologyChange.Bootstrap(b.members(), b.replicationFactor()));
        } catch (TopologyChangeRefused e) {
          return;
        } catch (RuntimeException e) {
          LOG.log(Level.DEBUG, () -> "bootstrap not agreed yet, retrying: " + e.getMessage());
        }
      }
    });
  }

  /** The Raft group as this node's server has it now: its members' peers. */
  RaftGroup group() {
    try {
      return server.getDivision(GROUP_ID).getGroup();
    } catch (IOException e) {
      throw new MembershipUnavailable("this node's Raft group is not running: " + e.getMessage(), e);
    }
  }

  /** A client of the group's current members (on the changes thread only). */
  private RaftClient client() {
    RaftGroup group = group();
    RaftClient current = client;
    if (current != null && group.equals(clientGroup)) return current;
    closeClient();
    RaftClient made = RaftClient.newBuilder()
        .setProperties(properties)
        .setParameters(parameters)
        .setRaftGroup(group)
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(60, TimeDuration.valueOf(250, TimeUnit.MILLISECONDS)))
        .build();
    client = made;
    clientGroup = group;
    return made;
  }

  private void closeClient() {
    RaftClient current = client;
    client = null;
    clientGroup = null;
    if (current == null) return;
    try {
      current.close();
    } catch (IOException e) {
      LOG.log(Level.DEBUG, () -> "closing a Raft client: " + e.getMessage());
    }
  }

  static List<RaftPeer> peers(List<Member> members) {
    return members.stream().map(m -> RaftPeer.newBuilder().setId(peerId(m.address())).setAddress(m.raftAddress()).build()).toList();
  }

  /** The member's Raft id: its node id with every character but letters and digits as '_'. */
  static RaftPeerId peerId(NodeAddress address) {
    return RaftPeerId.valueOf(address.id().replaceAll("[^A-Za-z0-9]", "_"));
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MembershipUnavailable("interrupted", e);
    }
  }

  @Override
  public void close() {
    changes.shutdownNow();
    try {
      if (!changes.awaitTermination(5, TimeUnit.SECONDS)) LOG.log(Level.WARNING, "a cluster map change was still running at close");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeClient(); // the changes thread is done with it
    try {
      server.close();
    } catch (IOException e) {
      LOG.log(Level.WARNING, "closing the Raft server: " + e.getMessage());
    }
  }

  /** Logs, on the member that a change removed, that it may be stopped; then tells the listener. */
  private record RemovalNotice(NodeAddress self, TopologyListener next) implements TopologyListener {
    @Override
    public void onChange(ClusterMap before, ClusterMap after) {
      if (before.member(self).isPresent() && after.member(self).isEmpty()) {
        LOG.log(Level.INFO, "this node (" + self + ") was removed from the cluster (map version " + after.version()
            + "); it may be stopped");
      }
      next.onChange(before, after);
    }
  }
}
