package dev.shale.server.scan;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.handoff.GainedKeys;
import dev.shale.cluster.handoff.PullSource.Sink;
import dev.shale.server.peer.PeerDialer;
import dev.shale.storage.Entry;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * One pull of a handoff: the records a node gains from one source, as a SCAN with a handoff
 * filter ({@link GainedKeys}) over a {@link PeerNodeStream}, the same stream a cluster scan
 * reads, handed in batches to a {@link Sink} that writes them on a thread of its own. The
 * stream reads ahead a bounded amount while a batch is written, and no further: a slow sink (a
 * throttled one) slows the source down through TCP.
 *
 * <p>Ends once the source's stream ended and every record was written ({@link #done} completes),
 * or fails with the stream's or the sink's failure, after the batch being written is written: so
 * when {@link #done} completes either way, the sink is no longer called.
 *
 * <p>Confined to {@code loop}, but for the sink's calls, on {@code writer}.
 */
public final class HandoffPull implements NodeStream.Listener {
  private final EventLoop loop;
  private final Executor writer;
  private final Sink sink;
  private final PeerNodeStream stream;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private boolean writing;
  private @Nullable String failure; // the stream failed while a batch was being written

  private HandoffPull(EventLoop loop, Executor writer, Sink sink, PeerNodeStream stream) {
    this.loop = loop;
    this.writer = writer;
    this.sink = sink;
    this.stream = stream;
  }

  /**
   * Starts pulling from {@code source} the keys of {@code gained} from {@code start} on.
   *
   * @param timeoutMillis how long the source may take to answer, and then to send more while
   *     the pull waits for it
   */
  public static HandoffPull start(PeerDialer dialer, EventLoop loop, Executor writer, NodeAddress source,
      GainedKeys gained, byte[] start, long timeoutMillis, Sink sink) {
    PeerNodeStream stream = new PeerNodeStream(source, key -> true, dialer, timeoutMillis, start, null, gained, loop);
    HandoffPull pull = new HandoffPull(loop, writer, sink, stream);
    loop.execute(() -> stream.open(pull));
    return pull;
  }

  /** Completes once every record was written; fails with a one-line reason naming the source. */
  public CompletableFuture<Void> done() {
    return done;
  }

  @Override
  public void opened(NodeStream opened) {
    stream.demand();
  }

  @Override
  public void failed(NodeStream failed, String reason) {
    if (writing) {
      failure = reason;
    } else {
      finish(reason);
    }
  }

  @Override
  public void readable(NodeStream readable) {
    if (writing || done.isDone()) return;
    List<Entry> batch = new ArrayList<>();
    Entry entry;
    while ((entry = stream.poll()) != null) batch.add(entry);
    if (!batch.isEmpty()) {
      writing = true;
      writer.execute(() -> write(batch));
    } else if (stream.ended()) {
      finish(null);
    } else {
      stream.demand();
    }
  }

  private void write(List<Entry> batch) {
    String failed = null;
    try {
      sink.write(batch);
    } catch (Exception e) {
      failed = "writing records pulled from " + stream.node() + " failed: " + e;
    }
    String reason = failed;
    loop.execute(() -> written(reason));
  }

  private void written(@Nullable String writeFailure) {
    writing = false;
    String reason = writeFailure != null ? writeFailure : failure;
    if (reason != null) {
      finish(reason);
    } else {
      readable(stream);
    }
  }

  private void finish(@Nullable String reason) {
    if (done.isDone()) return;
    stream.close();
    if (reason == null) {
      done.complete(null);
    } else {
      done.completeExceptionally(new HandoffPullFailed(reason));
    }
  }

  /** Why a pull did not end: the source failed, or so did writing what it sent. */
  public static final class HandoffPullFailed extends RuntimeException {
    HandoffPullFailed(String reason) {
      super(reason);
    }
  }
}
