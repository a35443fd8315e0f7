package dev.shale.server.http;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * A body whose length is not known until it ends (chunked transfer encoding), copied out of
 * Netty's buffers as it arrives. Holding no Netty buffer matters: a retained slice pins the
 * whole read buffer it came from, and a client sending tiny chunks could make a few bytes of
 * body hold far more memory than the body budget counts. Blocks grow from 8 KiB to 1 MiB, so a
 * small body stays small and a large one costs few blocks; {@link #toArray} joins them.
 *
 * <p>Not thread safe: owned by one connection's event loop.
 */
final class ChunkedBody {
  private static final int FIRST_BLOCK_BYTES = 8 * 1024;
  private static final int MAX_BLOCK_BYTES = 1 << 20;

  // Invariant: every block but the last is full; the last holds `lastLength` bytes.
  private final List<byte[]> blocks = new ArrayList<>();
  private int lastLength;
  private long length;

  /** Copies the readable bytes of {@code chunk} (it is left read, not released). */
  void append(ByteBuf chunk) {
    while (chunk.isReadable()) {
      if (blocks.isEmpty() || lastLength == last().length) addBlock();
      int n = Math.min(chunk.readableBytes(), last().length - lastLength);
      chunk.readBytes(last(), lastLength, n);
      lastLength += n;
      length += n;
    }
  }

  long length() {
    return length;
  }

  /** The body in one array of exactly {@link #length} bytes; at most {@code Integer.MAX_VALUE - 8}. */
  byte[] toArray() {
    byte[] body = new byte[Math.toIntExact(length)];
    int at = 0;
    for (int i = 0; i < blocks.size(); i++) {
      byte[] block = blocks.get(i);
      int n = i == blocks.size() - 1 ? lastLength : block.length;
      System.arraycopy(block, 0, body, at, n);
      at += n;
    }
    return body;
  }

  private byte[] last() {
    return blocks.getLast();
  }

  private void addBlock() {
    int size = blocks.isEmpty() ? FIRST_BLOCK_BYTES : Math.min(last().length * 2, MAX_BLOCK_BYTES);
    blocks.add(new byte[size]);
    lastLength = 0;
  }
}
