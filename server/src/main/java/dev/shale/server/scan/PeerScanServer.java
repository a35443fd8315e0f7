package dev.shale.server.scan;

import dev.shale.server.EngineBatches;
import dev.shale.cluster.Placement;
import dev.shale.cluster.handoff.GainedKeys;
import dev.shale.server.EntityService;
import dev.shale.server.peer.MapFence;
import dev.shale.server.peer.PeerMessage;
import dev.shale.server.peer.PeerScans;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Serves peers' scans (SCAN, docs/format.md "Internode protocol") and repairs' TREE and DIGESTS
 * ({@link PeerRepairServer}). A scan: this node's records of the range (only the keys a handoff
 * pulls, for a SCAN with a handoff filter), tombstones included, streamed by an {@link
 * EngineScan} as SCAN_DATA frames ({@link PeerScanAnswer}), with the same backpressure as a
 * client's scan: a batch is pulled
 * only once the previous one is written and the connection is writable.
 *
 * <p>A scan has its connection to itself: it takes the connection over, in the place of the
 * request handler that called it, so that the connection's writability and its close reach the
 * scan, and anything the peer sends after the SCAN closes the connection (the protocol allows
 * nothing). The close, by the peer once it read the end or by either side on a failure,
 * releases the scan's iterator.
 *
 * <p>Thread safe: immutable; each scan is confined to its connection's event loop.
 */
public final class PeerScanServer implements PeerScans {
  /**
   * How long a handoff's source waits to have applied the change the receiver pulls for (Raft
   * applies it on every member within milliseconds of another) and for the writes it admitted
   * before it; past it the pull fails, and the receiver tries again.
   */
  static final long FENCE_WAIT_MILLIS = 10_000;

  private final EntityService service;
  private final MapFence fence;
  private final ScanThreads threads;
  private final PeerRepairServer repairs;

  /**
   * @param placement the cluster's placement now (asked for each repair request, so that it
   *     follows the cluster map): it says which records a repair's range holds
   * @param fence this node's replica fence: a handoff's scan starts once the change is applied here
   */
  public PeerScanServer(EntityService service, ScanThreads threads, Supplier<Placement> placement, MapFence fence) {
    this.service = service;
    this.fence = fence;
    this.threads = threads;
    this.repairs = new PeerRepairServer(service, threads, placement);
  }

  @Override
  public void scan(ChannelHandlerContext ctx, long id, byte[] start, byte @Nullable [] end, @Nullable GainedKeys gained) {
    // A scan that waits for the coordinator lets its iterator go, and resumes after its last key.
    EngineBatches.Source records = gained == null ? after -> service.scan(from(start, after), end, true) : after -> {
      // On a scan thread. The store read must hold every write that reached this node addressed
      // by a map before the change: else one landing after the scan passed its key reaches no new replica.
      long change = gained.change().mapVersion();
      if (!fence.awaitApplied(change, FENCE_WAIT_MILLIS)) {
        throw new IllegalStateException("this node has not applied the change of map version " + change
            + " (or finished the writes it took before it) within " + FENCE_WAIT_MILLIS + " ms");
      }
      return new GainedRecords(service.scan(from(start, after), end, true), gained);
    };
    EngineScan scan = new EngineScan(records, threads, start, end);
    ctx.pipeline().replace(ctx.name(), "scan", new ServedScan(scan, id));
  }

  private static byte[] from(byte[] start, byte @Nullable [] after) {
    return after == null ? start : EngineBatches.keyAfter(after);
  }

  @Override
  public void tree(ChannelHandlerContext ctx, PeerMessage.Tree request) {
    repairs.tree(ctx, request);
  }

  /** A repair's digests: served as a scan is, from a scan that leaves the values out. */
  @Override
  public void digests(ChannelHandlerContext ctx, PeerMessage.Digests request) {
    EngineScan scan = repairs.digests(ctx, request);
    if (scan != null) ctx.pipeline().replace(ctx.name(), "scan", new ServedScan(scan, request.id()));
  }

  /** The last handler of a connection serving one scan. */
  private static final class ServedScan extends ChannelInboundHandlerAdapter {
    private final EngineScan scan;
    private final long id;

    ServedScan(EngineScan scan, long id) {
      this.scan = scan;
      this.id = id;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      if (!ctx.channel().isActive()) return; // closed already: no inactive event will come to end the scan
      // Read on: the peer sends nothing more, but its close must be seen, also while the scan
      // waits for nothing (after its end) or for writability.
      ctx.channel().config().setAutoRead(true);
      scan.start(ctx, new PeerScanAnswer(ctx, id));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
      ctx.close(); // one scan per connection: a peer that sends more breaks the protocol
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      scan.writabilityChanged();
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      scan.discard();
      ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
      if (event instanceof ChannelInputShutdownEvent) { // the peer closed (the server allows half-closure)
        scan.discard();
        ctx.close();
      }
      ctx.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      scan.discard();
      ctx.close();
    }
  }
}
