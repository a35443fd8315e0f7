package dev.shale.server.scan;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.handoff.GainedKeys;
import dev.shale.cluster.handoff.PullSource;
import dev.shale.server.peer.PeerDialer;
import dev.shale.storage.Env;
import io.netty.channel.EventLoopGroup;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A handoff's pulls over the internode protocol: each a {@link HandoffPull} on an event loop of
 * the server's, whose records are written on one thread of its own (the engine's writes may
 * block, the event loops must not).
 *
 * <p>Thread safe.
 */
public final class HandoffPulls implements PullSource, AutoCloseable {
  private final PeerDialer dialer;
  private final EventLoopGroup loops;
  private final long timeoutMillis;
  private final ExecutorService writer;
  private final Env env;

  /**
   * {@code timeoutMillis}: how long a source may take to answer, and then to send more ({@code
   * --replica-timeout}); the writer thread comes from {@code env}.
   */
  public HandoffPulls(PeerDialer dialer, EventLoopGroup loops, long timeoutMillis, Env env) {
    this.env = env;
    this.writer = env.newSingleThreadExecutor("shale-handoff-writer");
    this.dialer = dialer;
    this.loops = loops;
    this.timeoutMillis = timeoutMillis;
  }

  @Override
  public CompletableFuture<Void> pull(NodeAddress source, GainedKeys keys, byte[] start, Sink sink) {
    return HandoffPull.start(dialer, loops.next(), writer, source, keys, start, timeoutMillis, sink).done();
  }

  /**
   * Stops the writer thread once the batch it writes, if any, is written (the handoff stops
   * first, so that batch ends soon). Not interrupted: an interrupt would close the engine's log
   * file under a write.
   */
  @Override
  public void close() {
    writer.shutdown();
    try {
      env.awaitTermination(writer, 5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
