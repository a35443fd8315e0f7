package dev.shale.server.scan;

import dev.shale.server.EngineBatches;
import dev.shale.server.Reasons;
import dev.shale.server.http.Responses;
import dev.shale.server.http.StreamingAnswer;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Keys;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Streams this node's records of a range from its engine: a client's local scan, or a peer's
 * internal scan. Backpressure from the socket to the engine: a batch is pulled only once the
 * previous one has been written and the channel is writable, so a client that reads slowly
 * slows the scan down, and the node holds at most one batch plus Netty's write buffer for it.
 *
 * <p>The status line goes out with the first batch, so a scan that fails before any record
 * (or finds the server at its scan limit) gets a plain 500 (503). A failure after that cannot
 * change the status: the connection is closed without the terminating chunk, which a client
 * sees as a cut body, never as a complete one.
 *
 * <p>Confined to the channel's event loop.
 */
final class EngineScanAnswer implements StreamingAnswer {
  private static final System.Logger LOG = System.getLogger(EngineScanAnswer.class.getName());

  private final Supplier<EntryIterator> open;
  private final ScanThreads threads;
  private final ScanChunks chunks;
  private final HttpVersion version;
  private final String what; // for log lines: the range
  private @Nullable ChannelHandlerContext ctx;
  private boolean keepAlive;
  private @Nullable Runnable ended;
  private @Nullable EngineBatches batches;
  private boolean began; // holds a place in ScanThreads
  private boolean headWritten;
  private boolean waitingForWritable;
  private boolean over;

  EngineScanAnswer(Supplier<EntryIterator> open, ScanThreads threads, ScanChunks chunks, HttpVersion version, String what) {
    this.open = open;
    this.threads = threads;
    this.chunks = chunks;
    this.version = version;
    this.what = what;
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
    batches = new EngineBatches(open, threads, ctx.executor());
    batches.request(this::onBatch);
  }

  private void onBatch(EngineBatches.Batch batch) {
    if (over) return;
    if (batch.failure() != null) {
      fail(batch.failure());
      return;
    }
    boolean first = !headWritten;
    if (first) {
      ctx().write(chunks.head(version, keepAlive), ctx().voidPromise());
      headWritten = true;
    }
    chunks.write(ctx(), batch.entries(), first);
    if (batch.last()) {
      chunks.end(ctx());
      var done = ctx().writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
      if (!keepAlive) done.addListener(ChannelFutureListener.CLOSE);
      finish();
      return;
    }
    ctx().flush();
    pullWhenWritable();
  }

  private void pullWhenWritable() {
    if (ctx().channel().isWritable()) {
      batches().request(this::onBatch);
    } else {
      waitingForWritable = true; // writabilityChanged resumes
    }
  }

  @Override
  public void writabilityChanged() {
    if (over || !waitingForWritable || !ctx().channel().isWritable()) return;
    waitingForWritable = false;
    batches().request(this::onBatch);
  }

  private void fail(RuntimeException failure) {
    String reason = Reasons.oneLine(failure.toString());
    if (!headWritten) {
      LOG.log(Level.ERROR, () -> "scan " + what + " failed: " + reason);
      answerWhole(Responses.error(version, HttpResponseStatus.INTERNAL_SERVER_ERROR, "scan failed: " + reason));
      return;
    }
    // The status was 200 already: cutting the connection before the terminating chunk is the
    // only way left to tell the client that the body is not whole.
    LOG.log(Level.ERROR, () -> "scan " + what + " failed mid-stream, cutting the connection: " + reason);
    ctx().close();
    finish();
  }

  private void answerWhole(FullHttpResponse response) {
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
    release();
  }

  private void release() {
    if (over) return;
    over = true;
    if (batches != null) batches.close();
    if (began) threads.end();
  }

  /** A range for log lines. */
  static String describe(byte[] start, byte @Nullable [] end) {
    return "[" + Keys.toDisplay(start) + ", " + (end == null ? "end" : Keys.toDisplay(end)) + ")";
  }

  private ChannelHandlerContext ctx() {
    return Objects.requireNonNull(ctx, "start() comes first");
  }

  private Runnable ended() {
    return Objects.requireNonNull(ended, "start() comes first");
  }

  private EngineBatches batches() {
    return Objects.requireNonNull(batches, "start() comes first");
  }
}
