package dev.shale.server.scan;

import dev.shale.server.EngineBatches;
import dev.shale.cluster.Cluster;
import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.server.http.Responses;
import dev.shale.server.http.StreamingAnswer;
import dev.shale.server.peer.PeerDialer;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;

/**
 * A cluster scan's coordinator ({@code scope=cluster}): opens every node's records of the range
 * (its own through the engine, the peers' by a SCAN on a peer connection each), merges them in
 * key order, and streams each key once, with its newest record among the answers of the key's
 * replicas.
 *
 * <p>The merge: a heap of the streams that have a record buffered, ordered by that record's key.
 * Each step takes the smallest key from every stream that holds it; the replicas of the key are
 * the first {@code from} nodes of its preference list, a replica whose stream is alive answers
 * (with its record, or "absent" when its stream skips the key), and {@link Entry#newer} picks
 * among the records of the replicas. The key goes out if that record is a value. A step runs
 * only when no live stream is waiting for records (else it might hold a smaller key), and only
 * while the client's channel is writable: backpressure from the client to the peers.
 *
 * <p>Consistency: every stream is opened before the first byte. If more than {@code from - ack}
 * nodes cannot be reached, some key could lack {@code ack} answers, so the scan answers 504
 * naming them. Otherwise every key's replicas include at least {@code ack} live streams; the
 * per-key count is checked anyway. Why not only per key: a key that only unreachable nodes hold
 * never shows up in the merge, so no per-key check could notice it missing. The 200 goes out with
 * the first entry: a stream that fails before it gets a 504, after it cuts the answer (connection
 * closed without the terminating chunk).
 *
 * <p>Confined to the client connection's event loop, which every stream of the scan shares: no
 * locks. Memory: each peer stream reads ahead at most {@link PeerNodeStream#READ_AHEAD_BYTES}
 * (plus one frame and one socket read), the local stream one batch.
 */
final class ClusterScanAnswer implements StreamingAnswer, NodeStream.Listener {
  private static final System.Logger LOG = System.getLogger(ClusterScanAnswer.class.getName());

  private enum Phase { NEW, OPENING, STREAMING, OVER }

  private final Cluster cluster;
  private final ClusterMap map; // as it was when the scan was asked for: one scan, one map
  private final PeerDialer dialer;
  private final Consistency consistency;
  private final Scans.ScanQuery query;
  private final HttpVersion version;
  private final ScanThreads threads;
  private final EngineBatches.Source localRecords;
  private final List<NodeStream> streams = new ArrayList<>();
  private final Map<NodeAddress, NodeStream> byNode = new HashMap<>();
  private final PriorityQueue<NodeStream> heap =
      new PriorityQueue<>((a, b) -> Keys.compare(a.peek().key(), b.peek().key()));
  private final List<String> unreachable = new ArrayList<>();
  private @Nullable ChannelHandlerContext ctx;
  private boolean keepAlive;
  private @Nullable Runnable ended;
  private int status = 200; // until an error answers instead (statusCode)
  private Phase phase = Phase.NEW;
  private boolean began; // holds a place in ScanThreads
  private int starving; // live streams with nothing buffered that have not ended
  private boolean pumping;
  private boolean headWritten; // the 200 goes out with the first entry (or the end): failures before it get a status

  ClusterScanAnswer(
      Cluster cluster, PeerDialer dialer, Consistency consistency, Scans.ScanQuery query, HttpVersion version, ScanThreads threads,
      EngineBatches.Source localRecords) {
    this.cluster = cluster;
    this.map = cluster.map();
    this.dialer = dialer;
    this.consistency = consistency;
    this.query = query;
    this.version = version;
    this.threads = threads;
    this.localRecords = localRecords;
  }

  @Override
  public void start(ChannelHandlerContext ctx, boolean keepAlive, Runnable ended) {
    this.ctx = ctx;
    this.keepAlive = keepAlive;
    this.ended = ended;
    if (!threads.tryBegin()) {
      answerWhole(Responses.error(version, HttpResponseStatus.SERVICE_UNAVAILABLE,
          threads.maxScans() + " scans are running, the most this node serves at once; retry later"));
      return;
    }
    began = true;
    phase = Phase.OPENING;
    createStreams();
    for (NodeStream stream : List.copyOf(streams)) {
      if (phase == Phase.OPENING) stream.open(this);
    }
  }

  private void createStreams() {
    NodeAddress self = cluster.topology().self();
    for (NodeAddress node : map.readableMembers()) {
      NodeStream stream = node.equals(self)
          ? new LocalNodeStream(self, query::contains, localRecords, threads, ctx().executor())
          : new PeerNodeStream(node, query::contains, dialer, cluster.forwardTimeoutMillis(), query.start(), query.end(), null,
              ctx().channel().eventLoop());
      streams.add(stream);
      byNode.put(node, stream);
    }
  }

  @Override
  public void opened(NodeStream stream) {
    if (phase != Phase.OPENING) return;
    stream.starving = true;
    starving++;
    settle();
  }

  @Override
  public void failed(NodeStream stream, String reason) {
    switch (phase) {
      case OPENING -> {
        if (stream.starving) { // opened, then failed before the first byte went out
          stream.starving = false;
          starving--;
        }
        unreachable.add(reason);
        settle();
      }
      case STREAMING -> cut("node " + stream.node() + " failed mid-scan: " + reason);
      default -> {}
    }
  }

  /** Once every stream has opened or failed: the 200 and the merge, or 504. */
  private void settle() {
    for (NodeStream s : streams) {
      if (s.state() == NodeStream.State.NEW || s.state() == NodeStream.State.OPENING) return;
    }
    int down = unreachable.size();
    int tolerated = consistency.from() - consistency.ack();
    if (down > tolerated) {
      LOG.log(Level.WARNING, () -> "cluster scan " + describe() + " refused: " + String.join("; ", unreachable));
      answerWhole(Responses.error(version, HttpResponseStatus.GATEWAY_TIMEOUT,
          down + " node(s) cannot be reached and ack=" + consistency.ack() + " of from=" + consistency.from()
              + " tolerates " + tolerated + ": " + String.join("; ", unreachable)));
      return;
    }
    phase = Phase.STREAMING;
    pump();
  }

  @Override
  public void readable(NodeStream stream) {
    if (phase != Phase.STREAMING) return;
    unstarve(stream);
    pump();
  }

  /** A stream waiting for records that has some now, or has ended, waits no more. */
  private void unstarve(NodeStream stream) {
    if (stream.starving && (!stream.isEmpty() || stream.ended())) {
      stream.starving = false;
      starving--;
      if (!stream.isEmpty()) heap.add(stream);
    }
  }

  @Override
  public void writabilityChanged() {
    if (phase == Phase.STREAMING) pump();
  }

  /** Merges and writes while every live stream has a record (or has ended) and the client takes more. */
  private void pump() {
    if (pumping) return; // a stream that reports inside demand() re-enters here
    pumping = true;
    try {
      while (phase == Phase.STREAMING && ctx().channel().isWritable()) {
        if (starving > 0) {
          // A copy: a stream may fail inside demand(), and the cut clears the list. Records that
          // arrived before the merge began are taken first.
          for (NodeStream s : List.copyOf(streams)) {
            unstarve(s);
            if (s.starving) s.demand();
          }
          if (starving > 0) break;
          continue;
        }
        if (heap.isEmpty()) {
          complete();
          return;
        }
        step();
      }
    } finally {
      pumping = false;
    }
    if (phase == Phase.STREAMING) {
      ctx().flush();
      // Waiting for the client: this node's stream lets its iterator go meanwhile.
      if (!ctx().channel().isWritable()) streams.forEach(NodeStream::park);
    }
  }

  /** Takes the smallest key from every stream that holds it, and writes its newest value. */
  private void step() {
    List<NodeStream> holders = new ArrayList<>(4);
    NodeStream first = heap.poll();
    first.taken = first.poll();
    holders.add(first);
    while (!heap.isEmpty() && Keys.compare(heap.peek().peek().key(), first.taken.key()) == 0) {
      NodeStream next = heap.poll();
      next.taken = next.poll();
      holders.add(next);
    }
    byte[] key = first.taken.key();
    Entry newest = newestAmongReplicas(key);
    for (NodeStream s : holders) {
      s.taken = null;
      if (!s.isEmpty()) {
        heap.add(s);
      } else if (!s.ended()) {
        s.starving = true;
        starving++;
      }
    }
    if (phase == Phase.STREAMING && newest != null && !newest.isTombstone()) {
      writeHead();
      ScanChunks.write(ctx(), List.of(newest));
    }
  }

  private @Nullable Entry newestAmongReplicas(byte[] key) {
    List<NodeAddress> replicas = consistency.from() == streams.size()
        ? map.readableMembers()
        : map.readReplicas(key, consistency.from());
    Entry newest = null;
    int answers = 0;
    for (NodeAddress replica : replicas) {
      NodeStream stream = Objects.requireNonNull(byNode.get(replica), "every node has a stream");
      if (!stream.isOpen()) continue; // unreachable: no answer
      answers++; // its record, or absent
      if (stream.taken != null) newest = newest == null ? stream.taken : Entry.newer(newest, stream.taken);
    }
    if (answers < consistency.ack()) {
      cut("key " + Keys.toDisplay(key) + " has " + answers + " answer(s) of the ack=" + consistency.ack() + " it needs");
      return null;
    }
    return newest;
  }

  private void writeHead() {
    if (headWritten) return;
    headWritten = true;
    ctx().write(ScanChunks.head(version, keepAlive), ctx().voidPromise());
  }

  private void complete() {
    phase = Phase.OVER;
    writeHead();
    var done = ctx().writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
    if (!keepAlive) done.addListener(ChannelFutureListener.CLOSE);
    finish();
  }

  /**
   * A failure while streaming: before the first entry the status can still say it (504); after
   * the 200, the only honest way left is to cut the body.
   */
  private void cut(String reason) {
    if (phase == Phase.OVER) return;
    if (!headWritten) {
      LOG.log(Level.WARNING, () -> "cluster scan " + describe() + " failed before its first entry: " + reason);
      answerWhole(Responses.error(version, HttpResponseStatus.GATEWAY_TIMEOUT, "the cluster scan failed: " + reason));
      return;
    }
    phase = Phase.OVER;
    LOG.log(Level.ERROR, () -> "cluster scan " + describe() + " cut: " + reason);
    ctx().close();
    finish();
  }

  @Override
  public int statusCode() {
    return status;
  }

  private void answerWhole(FullHttpResponse response) {
    status = response.status().code();
    phase = Phase.OVER;
    HttpUtil.setKeepAlive(response, keepAlive);
    var written = ctx().writeAndFlush(response);
    if (!keepAlive) written.addListener(ChannelFutureListener.CLOSE);
    finish();
  }

  private void finish() {
    release();
    ended().run();
  }

  @Override
  public void discard() {
    phase = Phase.OVER;
    release();
  }

  private void release() {
    for (NodeStream stream : streams) stream.close();
    streams.clear();
    heap.clear();
    if (began) {
      began = false;
      threads.end();
    }
  }

  private String describe() {
    return EngineScan.describe(query.start(), query.end()) + " (" + consistency + ")";
  }

  private ChannelHandlerContext ctx() {
    return Objects.requireNonNull(ctx, "start() comes first");
  }

  private Runnable ended() {
    return Objects.requireNonNull(ended, "start() comes first");
  }
}
