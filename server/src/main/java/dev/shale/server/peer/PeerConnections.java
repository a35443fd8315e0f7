package dev.shale.server.peer;

import dev.shale.storage.ThrottledLog;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import java.io.IOException;
import java.lang.System.Logger.Level;

/** How every peer connection's handler ends on an error. */
final class PeerConnections {
  private static final System.Logger LOG = System.getLogger(PeerConnections.class.getName());
  // Garbage repeats as fast as a stranger sends it: one line per 10 s per kind of fault.
  private static final ThrottledLog BAD_FRAME_LOG = new ThrottledLog(LOG, Level.WARNING, ThrottledLog.DEFAULT_INTERVAL_MILLIS);

  private PeerConnections() {}

  /**
   * Closes the connection: a bad frame with one throttled line naming it, a reset in silence (the
   * peer's business), anything else (a bug) with a line each time.
   */
  static void closeOnError(ChannelHandlerContext ctx, Throwable cause, String what) {
    if (cause instanceof DecoderException && cause.getCause() instanceof BadFrameException bad) {
      BAD_FRAME_LOG.log("bad frame " + bad.getMessage(), () -> "closing " + what + ": " + bad.getMessage());
    } else if (!(cause instanceof IOException)) {
      LOG.log(Level.WARNING, () -> "closing " + what + ": " + oneLine(String.valueOf(cause)));
    }
    ctx.close();
  }

  static String oneLine(String text) {
    return text.replaceAll("[\\r\\n]+", " ");
  }
}
