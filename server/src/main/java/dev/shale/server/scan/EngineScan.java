package dev.shale.server.scan;

import dev.shale.server.EngineBatches;
import dev.shale.server.Reasons;
import dev.shale.storage.Keys;
import io.netty.channel.ChannelHandlerContext;
import java.lang.System.Logger.Level;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Streams this node's records of a range from its engine into a {@link ScanSink}: a client's
 * local scan, or a peer's part of a cluster scan. Backpressure from the socket to the engine: a
 * batch is pulled only once the previous one has been written and the channel is writable, so a
 * reader that reads slowly slows the scan down, and the node holds at most one batch plus
 * Netty's write buffer for it. While it waits for its reader the scan holds no iterator
 * ({@link EngineBatches#park}): a reader that stops holds no tables, memtables or read-ahead
 * windows, however long it takes.
 *
 * <p>Confined to the channel's event loop.
 */
final class EngineScan {
  private static final System.Logger LOG = System.getLogger(EngineScan.class.getName());

  private final EngineBatches.Source open;
  private final ScanThreads threads;
  private final String what; // for log lines: the range
  private @Nullable ChannelHandlerContext ctx;
  private @Nullable ScanSink sink;
  private @Nullable EngineBatches batches;
  private boolean began; // holds a place in ScanThreads
  private boolean written; // a batch went to the sink
  private boolean waitingForWritable;
  private boolean over;

  EngineScan(EngineBatches.Source open, ScanThreads threads, byte[] start, byte @Nullable [] end) {
    this.open = open;
    this.threads = threads;
    this.what = describe(start, end);
  }

  /** Starts pulling; {@code ctx}: the channel the sink writes to, whose writability paces the scan. */
  void start(ChannelHandlerContext ctx, ScanSink sink) {
    this.ctx = ctx;
    this.sink = sink;
    if (!threads.tryBegin()) {
      over = true;
      sink.busy(threads.maxScans() + " scans are running, the most this node serves at once; retry later");
      return;
    }
    began = true;
    batches = new EngineBatches(open, threads, threads.views(), ctx.executor());
    batches.request(this::onBatch);
  }

  private void onBatch(EngineBatches.Batch batch) {
    if (over) return;
    RuntimeException failure = batch.failure();
    if (failure != null) {
      fail(failure);
      return;
    }
    sink().write(batch.entries(), !written);
    written = true;
    if (batch.last()) {
      release();
      sink().end();
      return;
    }
    ctx().flush();
    if (ctx().channel().isWritable()) {
      batches().request(this::onBatch);
    } else {
      waitingForWritable = true; // writabilityChanged resumes
      batches().park();
    }
  }

  /** The channel's writability changed: a scan waiting for its reader may go on. */
  void writabilityChanged() {
    if (over || !waitingForWritable || !ctx().channel().isWritable()) return;
    waitingForWritable = false;
    batches().request(this::onBatch);
  }

  /** The reader is gone: lets go of the iterator now (or right after the pull in flight). */
  void discard() {
    release();
  }

  private void fail(RuntimeException failure) {
    String reason = Reasons.oneLine(failure.toString());
    boolean began = written;
    LOG.log(Level.ERROR, () -> "scan " + what + " failed" + (began ? " mid-stream, cutting it: " : ": ") + reason);
    release();
    sink().fail(reason, began);
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

  private ScanSink sink() {
    return Objects.requireNonNull(sink, "start() comes first");
  }

  private EngineBatches batches() {
    return Objects.requireNonNull(batches, "start() comes first");
  }
}
