package dev.shale.server.scan;

import dev.shale.server.EngineBatches;
import dev.shale.cluster.Placement;
import dev.shale.cluster.repair.LeafSelection;
import dev.shale.cluster.repair.LeafSet;
import dev.shale.cluster.repair.RangeRecords;
import dev.shale.cluster.repair.RepairTree;
import dev.shale.cluster.repair.SharedRange;
import dev.shale.server.EntityService;
import dev.shale.server.Reasons;
import dev.shale.server.peer.PeerMessage;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Serves a repair's requests from this node's store (docs/format.md, "Repair requests"): TREE
 * (the whole tree, or the sub-leaves of some leaves), built in one pass over the store on a scan
 * thread and sent as LEAVES frames; DIGESTS, streamed like a peer's scan ({@link PeerScanServer})
 * with the values left out. Both take a place among the node's scans ({@link ScanThreads}): a
 * node busy with scans refuses them (FAILED 2) rather than queue a pass over its whole store. A request naming a range or shape the protocol does not
 * allow is refused (FAILED 1) before any work.
 *
 * <p>Thread safe: immutable; each request is confined to its connection's event loop, but for
 * the tree's build.
 */
final class PeerRepairServer {
  private static final byte[] FIRST_KEY = new byte[0];

  private final EntityService service;
  private final ScanThreads threads;
  private final Supplier<Placement> placement; // the cluster's now: asked for each request

  PeerRepairServer(EntityService service, ScanThreads threads, Supplier<Placement> placement) {
    this.service = service;
    this.threads = threads;
    this.placement = placement;
  }

  void tree(ChannelHandlerContext ctx, PeerMessage.Tree request) {
    long id = request.id();
    SharedRange range;
    @Nullable BitSet leaves; // null: the whole tree
    try {
      range = SharedRange.withPeer(placement.get(), request.other(), request.replicas());
      leaves = leavesToRefine(request);
    } catch (IllegalArgumentException e) {
      failed(ctx, id, PeerMessage.Failed.REFUSED, String.valueOf(e.getMessage()));
      return;
    }
    ctx.channel().config().setAutoRead(true); // the requester's close must be seen; anything else it sends closes the connection
    if (!threads.tryBegin()) {
      failed(ctx, id, PeerMessage.Failed.OVERLOADED, threads.maxScans() + " scans are running, the most this node serves at once; retry later");
      return;
    }
    try {
      threads.execute(() -> build(ctx, id, range, request.leafBits(), request.subBits(), leaves));
    } catch (RejectedExecutionException e) {
      threads.end();
      failed(ctx, id, PeerMessage.Failed.OVERLOADED, "the node is shutting down");
    }
  }

  /**
   * The leaves whose sub-leaves a TREE asks for, or null for the whole tree.
   *
   * @throws IllegalArgumentException with a one-line reason if the protocol does not allow the shape
   */
  private static @Nullable BitSet leavesToRefine(PeerMessage.Tree request) {
    RepairTree.checkedLeafBits(request.leafBits());
    if (LeafSelection.checkedSubBits(request.subBits()) == 0) {
      if (request.leaves().length != 0) throw new IllegalArgumentException("a leaf bitmap for the whole tree (sub-leaf bits 0)");
      return null;
    }
    BitSet leaves = LeafSet.decode(request.leaves(), request.leafBits());
    if (leaves.isEmpty()) throw new IllegalArgumentException("sub-leaves of no leaf");
    return leaves;
  }

  // On a scan thread, holding a place in ScanThreads.
  private void build(ChannelHandlerContext ctx, long id, SharedRange range, int leafBits, int subBits, @Nullable BitSet leaves) {
    try {
      RangeRecords records = new RangeRecords(service.scan(FIRST_KEY, null, true), range, leafBits, leaves);
      long[] hashes = leaves == null ? records.tree().leaves() : records.subLeaves(subBits).hashes();
      ctx.executor().execute(() -> sendLeaves(ctx, id, hashes));
    } catch (RuntimeException e) {
      ctx.executor().execute(() -> failed(ctx, id, PeerMessage.Failed.STORAGE_FAILED, "tree failed: " + Reasons.oneLine(e.toString())));
    } finally {
      threads.end();
    }
  }

  private static void sendLeaves(ChannelHandlerContext ctx, long id, long[] leaves) {
    for (int first = 0; first < leaves.length; first += PeerMessage.Leaves.MAX_HASHES) {
      long[] part = Arrays.copyOfRange(leaves, first, Math.min(leaves.length, first + PeerMessage.Leaves.MAX_HASHES));
      ctx.write(new PeerMessage.Leaves(id, first, part), ctx.voidPromise());
    }
    // The answer is whole: nothing more goes on this connection (the requester reads the
    // frames before it sees the close).
    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  /** The scan that streams the digests, or null (and the request refused) if it is not one to serve. */
  @Nullable EngineScan digests(ChannelHandlerContext ctx, PeerMessage.Digests request) {
    SharedRange range;
    LeafSelection selection;
    try {
      range = SharedRange.withPeer(placement.get(), request.other(), request.replicas());
      selection = LeafSelection.decode(request.leafBits(), request.subBits(), request.leaves(), request.masks());
    } catch (IllegalArgumentException e) {
      failed(ctx, request.id(), PeerMessage.Failed.REFUSED, String.valueOf(e.getMessage()));
      return null;
    }
    return new EngineScan(
        EngineBatches.Source.once(() -> RangeRecords.digests(service.scan(FIRST_KEY, null, true), range, selection)),
        threads, FIRST_KEY, null);
  }

  private static void failed(ChannelHandlerContext ctx, long id, int code, String reason) {
    ctx.writeAndFlush(new PeerMessage.Failed(id, code, reason)).addListener(ChannelFutureListener.CLOSE);
  }
}
