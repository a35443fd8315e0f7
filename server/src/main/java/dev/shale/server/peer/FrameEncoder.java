package dev.shale.server.peer;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/** Writes {@link PeerMessage}s as frames ({@link Frames#encode}). Stateless: one instance serves every connection. */
@ChannelHandler.Sharable
final class FrameEncoder extends MessageToMessageEncoder<PeerMessage> {
  static final FrameEncoder INSTANCE = new FrameEncoder();

  private FrameEncoder() {
    super(PeerMessage.class);
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, PeerMessage message, List<Object> out) {
    out.add(Frames.encode(ctx.alloc(), message));
  }
}
