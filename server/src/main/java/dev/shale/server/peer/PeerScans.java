package dev.shale.server.peer;

import dev.shale.cluster.handoff.GainedKeys;
import io.netty.channel.ChannelHandlerContext;
import org.jspecify.annotations.Nullable;

/**
 * Serves a peer's SCAN (docs/format.md, "Internode protocol"): streams this node's records of
 * {@code [start, end)} (only the keys in {@code gained} when it is not null: a handoff's pull)
 * as SCAN_DATA frames of request {@code id} on {@code ctx}'s connection (the internal scan
 * stream, "Internal scan stream"), closing it or answering FAILED if the scan fails. A scan has its connection to itself: once it is called, the connection carries nothing
 * else, and the implementation may stop reading it and close it when the scan ends.
 *
 * <p>Called on the connection's event loop.
 */
@FunctionalInterface
public interface PeerScans {
  /** A node that serves no scans to peers: FAILED, refused. */
  PeerScans NOT_SUPPORTED = (ctx, id, start, end, gained) -> ctx.writeAndFlush(
      new PeerMessage.Failed(id, PeerMessage.Failed.REFUSED, "scans are not supported by this node"));

  void scan(ChannelHandlerContext ctx, long id, byte[] start, byte @Nullable [] end, @Nullable GainedKeys gained);
}
