package dev.shale.server.peer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.jspecify.annotations.Nullable;

/**
 * A peer connection by hand, over a plain socket: writes any bytes or frames, reads the server's
 * frames back. For tests that send what no real node would.
 */
final class RawPeer implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder(FrameDecoder.Side.CLIENT));

  RawPeer(int port) throws IOException {
    socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    socket.setSoTimeout(10_000);
    in = socket.getInputStream();
    decoder.pipeline().get(FrameDecoder.class).authenticated(Integer.MAX_VALUE);
  }

  RawPeer send(byte[] bytes) throws IOException {
    socket.getOutputStream().write(bytes);
    socket.getOutputStream().flush();
    return this;
  }

  RawPeer send(PeerMessage message) throws IOException {
    return send(encoded(message));
  }

  RawPeer preface() throws IOException {
    return send(Frames.PREFACE);
  }

  static byte[] encoded(PeerMessage message) {
    ByteBuf frame = Frames.encode(ByteBufAllocator.DEFAULT, message);
    try {
      return ByteBufUtil.getBytes(frame);
    } finally {
      frame.release();
    }
  }

  /** The server's next frame; null once it closed the connection. */
  @Nullable PeerMessage receive() throws IOException {
    byte[] chunk = new byte[4096];
    while (true) {
      PeerMessage next = decoder.readInbound();
      if (next != null) return next;
      int n = in.read(chunk);
      if (n < 0) return null;
      decoder.writeInbound(Unpooled.copiedBuffer(chunk, 0, n));
    }
  }

  /** Whether the server closed the connection: reads until the end, dropping what comes. */
  boolean closedByServer() throws IOException {
    try {
      while (receive() != null) {
        // frames before the close (a REFUSED) are fine
      }
      return true;
    } catch (java.net.SocketException e) {
      return true; // reset: closed too
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
    decoder.finishAndReleaseAll();
  }
}
