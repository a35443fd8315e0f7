package dev.shale.server.http;

import io.netty.channel.ChannelHandlerContext;

/**
 * An answer written piece by piece (a scan's chunked body) rather than handed over whole. It
 * takes its turn in the {@link ResponseQueue} like any answer: {@link #start} is called once
 * every answer before it has been written, and the answers after it wait until it reports
 * {@code ended}. Meanwhile it writes to the channel itself, as fast as the client reads.
 *
 * <p>Confined to the channel's event loop: every method is called there, and {@code ended} must
 * be run there, exactly once, after the last byte of the answer was written (or after it cut the
 * connection).
 */
public interface StreamingAnswer {
  /**
   * Starts writing the answer (status line first). If {@code keepAlive} is false the answer closes
   * the connection after its last byte.
   */
  void start(ChannelHandlerContext ctx, boolean keepAlive, Runnable ended);

  /**
   * The status code the answer was written with, once it has ended: 200 for a streamed body
   * (whole or cut), or the code of the error it answered with instead. For the metrics.
   */
  int statusCode();

  /** The channel's writability changed: an answer waiting for the client may go on. */
  void writabilityChanged();

  /**
   * The connection is gone (or the answer never started and never will): release what the
   * answer holds (iterators, peer connections) now. {@code ended} is not run afterwards.
   */
  void discard();
}
