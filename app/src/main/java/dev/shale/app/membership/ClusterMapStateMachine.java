package dev.shale.app.membership;

import dev.shale.cluster.WholeFile;
import dev.shale.cluster.auth.TokenChangeRefused;
import dev.shale.cluster.auth.TokenFile;
import dev.shale.cluster.auth.TokenSet;
import dev.shale.cluster.auth.TokenSetCodec;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.ClusterMapCodec;
import dev.shale.cluster.membership.TopologyChange;
import dev.shale.cluster.membership.TopologyChangeCodec;
import dev.shale.cluster.membership.TopologyChangeRefused;
import dev.shale.cluster.membership.TopologyListener;
import java.io.File;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.jspecify.annotations.Nullable;

/**
 * The cluster map as a Raft state machine: applies the {@link TopologyChange}s of the log in
 * order ({@link ClusterMap#apply}), answers each with the map it made or why it was refused, and
 * writes the whole map as its snapshot (it is a line per member), so the log is purged up to it.
 * Beside the map it keeps the cluster's API tokens: a log entry that is a token change
 * ({@link TokenSetCodec#isChange}) changes the {@link TokenSet} instead, kept in
 * {@code <data>/raft/tokens} and at the end of the snapshot (docs/format.md, "API tokens").
 *
 * <p>Ratis calls {@link #applyTransaction} on one thread, in log order; {@link #current} is read
 * from any thread (a volatile immutable map).
 */
final class ClusterMapStateMachine extends BaseStateMachine {
  private static final System.Logger LOG = System.getLogger(ClusterMapStateMachine.class.getName());
  /** A reply's first word: the change applied (the map follows) or was refused (the reason follows). */
  static final String APPLIED = "applied\n";
  static final String REFUSED = "refused\n";

  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final TopologyListener listener;
  private final MapFile mapFile;
  private volatile ClusterMap map = ClusterMap.EMPTY;
  private final TokenFile tokenFile;
  private volatile TokenSet tokens = TokenSet.EMPTY;
  // Futures of callers waiting for the map to reach a version: completed as the log is applied.
  private final ConcurrentSkipListMap<Long, CompletableFuture<ClusterMap>> waiters = new ConcurrentSkipListMap<>();

  ClusterMapStateMachine(TopologyListener listener, MapFile mapFile, TokenFile tokenFile) {
    this.listener = listener;
    this.mapFile = mapFile;
    this.tokenFile = tokenFile;
  }

  ClusterMap current() {
    return map;
  }

  /** The token set as this node has applied it. */
  TokenSet tokens() {
    return tokens;
  }

  /** Completes with the map once this node has applied the log up to {@code index}. */
  CompletableFuture<ClusterMap> applied(long index) {
    CompletableFuture<ClusterMap> future = waiters.computeIfAbsent(index, i -> new CompletableFuture<>());
    // The log may have passed the index before the future was registered.
    if (getLastAppliedTermIndex().getIndex() >= index) completeWaiters(getLastAppliedTermIndex().getIndex());
    return future;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
    super.initialize(server, groupId, raftStorage);
    storage.init(raftStorage);
    loadSnapshot(storage.loadLatestSnapshot());
  }

  @Override
  public void reinitialize() throws IOException {
    loadSnapshot(storage.loadLatestSnapshot());
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long index = entry.getIndex();
    byte[] data = entry.getStateMachineLogEntry().getLogData().toByteArray();
    String reply = TokenSetCodec.isChange(data) ? applyTokenChange(data, index) : applyTopologyChange(data, index);
    updateLastAppliedTermIndex(entry.getTerm(), index);
    completeWaiters(index);
    return CompletableFuture.completedFuture(Message.valueOf(reply));
  }

  /** Applies a token change; refused alike on every node (a name taken, no such token). */
  private String applyTokenChange(byte[] data, long index) {
    try {
      TokenSet after = tokens.apply(TokenSetCodec.decodeChange(data), index);
      tokens = after;
      try {
        tokenFile.write(after);
      } catch (RuntimeException e) {
        // The Raft log still holds the change; only a restart's first set is older.
        LOG.log(Level.ERROR, "cannot persist token set version " + after.version() + ": " + e.getMessage());
      }
      LOG.log(Level.INFO, () -> "token set version " + after.version() + ": " + after.tokens().size() + " tokens");
      return APPLIED + "tokens " + after.version();
    } catch (TokenChangeRefused | IllegalArgumentException e) {
      return REFUSED + e.getMessage();
    }
  }

  private String applyTopologyChange(byte[] data, long index) {
    String reply;
    ClusterMap before = map;
    try {
      ClusterMap after = before.apply(TopologyChangeCodec.decode(data), index);
      map = after;
      persist(after);
      reply = APPLIED + new String(ClusterMapCodec.encode(after), StandardCharsets.UTF_8);
      LOG.log(Level.INFO, () -> "cluster map version " + after.version() + ": " + describe(after));
      notifyListener(before, after);
    } catch (TopologyChangeRefused | IllegalArgumentException e) {
      // Refused on every node alike: the map stays as it is, and the proposer hears why.
      reply = REFUSED + e.getMessage();
    }
    return reply;
  }

  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    // Configuration and leader entries advance the applied index too.
    super.notifyTermIndexUpdated(term, index);
    completeWaiters(index);
  }

  /**
   * Writes the whole map, fsynced, then renames it into place: a snapshot is there whole or not
   * at all, and durable before Ratis purges the log it stands for.
   */
  @Override
  public long takeSnapshot() throws IOException {
    ClusterMap snapshot = map;
    TokenSet tokenSnapshot = tokens;
    TermIndex last = getLastAppliedTermIndex();
    if (last == null || last.getIndex() < 0) return RaftLog.INVALID_LOG_INDEX;
    File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
    WholeFile.write(mapFile.vfs(), file.toPath(), SnapshotText.encode(snapshot, tokenSnapshot));
    storage.loadLatestSnapshot();
    return last.getIndex();
  }

  private void loadSnapshot(@Nullable SingleFileSnapshotInfo snapshot) throws IOException {
    if (snapshot == null) return;
    File file = snapshot.getFile().getPath().toFile();
    try {
      SnapshotText.Decoded decoded = SnapshotText.decode(Files.readAllBytes(file.toPath()));
      map = decoded.map();
      tokens = decoded.tokens();
    } catch (IllegalArgumentException e) {
      throw new IOException("the cluster map snapshot " + file + " is damaged: " + e.getMessage(), e);
    }
    setLastAppliedTermIndex(snapshot.getTermIndex());
  }

  private void persist(ClusterMap after) {
    try {
      mapFile.write(after);
    } catch (RuntimeException e) {
      // The Raft log still holds the change; only a restart's first map is older.
      LOG.log(Level.ERROR, "cannot persist cluster map version " + after.version() + ": " + e.getMessage());
    }
  }

  private void notifyListener(ClusterMap before, ClusterMap after) {
    try {
      listener.onChange(before, after);
    } catch (RuntimeException e) {
      // A listener's failure must not stop the log: every node has to apply every entry.
      LOG.log(Level.ERROR, "the topology listener failed on version " + after.version(), e);
    }
  }

  private void completeWaiters(long appliedIndex) {
    Map<Long, CompletableFuture<ClusterMap>> reached = waiters.headMap(appliedIndex, true);
    ClusterMap now = map;
    for (Long index : reached.keySet()) {
      CompletableFuture<ClusterMap> future = waiters.remove(index);
      if (future != null) future.complete(now);
    }
  }

  static String describe(ClusterMap map) {
    StringBuilder text = new StringBuilder();
    map.members().forEach(m -> text.append(text.isEmpty() ? "" : ", ").append(m.address()).append(' ').append(m.state().wireName()));
    return text.toString();
  }
}
