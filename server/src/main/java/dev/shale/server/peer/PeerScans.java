package dev.shale.server.peer;

import io.netty.channel.ChannelHandlerContext;
import org.jspecify.annotations.Nullable;

/**
 * Serves a peer's requests that read through this node's whole store and have a connection of
 * their own (docs/format.md, "Internode protocol"): SCAN streams this node's records of
 * {@code [start, end)} as SCAN_DATA frames of request {@code id} (the internal scan stream,
 * "Internal scan stream"), closing the connection or answering FAILED if the scan fails; TREE
 * and DIGESTS serve a repair ("Repair requests"). Once one is called, the connection carries
 * nothing else, and the implementation may stop reading it and close it when it ends.
 *
 * <p>Called on the connection's event loop.
 */
public interface PeerScans {
  /** A node that serves no scans or repairs to peers: FAILED, refused. */
  PeerScans NOT_SUPPORTED = (ctx, id, start, end) -> refuse(ctx, id, "scans are not supported by this node");

  void scan(ChannelHandlerContext ctx, long id, byte[] start, byte @Nullable [] end);

  /** Answers a TREE with LEAVES frames. */
  default void tree(ChannelHandlerContext ctx, PeerMessage.Tree request) {
    refuse(ctx, request.id(), "repairs are not supported by this node");
  }

  /** Answers a DIGESTS with SCAN_DATA frames. */
  default void digests(ChannelHandlerContext ctx, PeerMessage.Digests request) {
    refuse(ctx, request.id(), "repairs are not supported by this node");
  }

  private static void refuse(ChannelHandlerContext ctx, long id, String reason) {
    ctx.writeAndFlush(new PeerMessage.Failed(id, PeerMessage.Failed.REFUSED, reason));
  }
}
