package dev.shale.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.util.ReferenceCountUtil;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Loads keys k0..k(N-1) as fast as the node takes them: closed loop, one request in flight per
 * connection, so the concurrency is bounded by the connection count. A 503 (the node asks to
 * slow down) is retried after its Retry-After pause; any other failure stops the fill.
 */
public final class Fill {
  static final long RETRY_DELAY_NANOS = TimeUnit.SECONDS.toNanos(1);
  static final long PROGRESS_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

  private Fill() {}

  /** Puts k0..k(spec.keys()-1) with values of spec.valueSizeBytes(); progress goes to {@code out}. */
  public static void run(LoadSpec spec, PrintWriter out) throws LoadException {
    EventLoopGroup group = EventLoops.group(spec.threads());
    try {
      AtomicLong done = new AtomicLong();
      List<Filler> fillers = new ArrayList<>();
      Bootstrap bootstrap = EventLoops.bootstrap(group, spec.url());
      long started = System.nanoTime();
      ValuePool values = new ValuePool(spec.valueSizeBytes(), spec.seed());
      for (int i = 0; i < spec.connections(); i++) {
        Filler filler = new Filler(new RequestSource(spec, i, null, values), i, spec, done);
        ChannelFuture connected = bootstrap.clone().handler(filler.initializer()).connect().awaitUninterruptibly();
        if (!connected.isSuccess()) throw new LoadException("cannot connect to " + spec.url() + ": " + connected.cause());
        fillers.add(filler);
        filler.start(connected.channel());
      }
      CompletableFuture<Void> all = CompletableFuture.allOf(fillers.stream().map(f -> f.done).toArray(CompletableFuture[]::new));
      awaitWithProgress(all, done, spec.keys(), started, out);
      double seconds = (System.nanoTime() - started) / 1e9;
      out.printf(Locale.ROOT, "filled %d keys k0..k%d of %d bytes in %.1f s (%.0f puts/s)%n",
          spec.keys(), spec.keys() - 1, spec.valueSizeBytes(), seconds, spec.keys() / seconds);
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private static void awaitWithProgress(CompletableFuture<Void> all, AtomicLong done, long total, long started,
      PrintWriter out) throws LoadException {
    while (true) {
      try {
        all.get(PROGRESS_EVERY_NANOS, TimeUnit.NANOSECONDS);
        return;
      } catch (java.util.concurrent.TimeoutException e) {
        long n = done.get();
        double seconds = (System.nanoTime() - started) / 1e9;
        out.printf(Locale.ROOT, "  %d/%d keys (%.1f%%), %.0f puts/s%n", n, total, 100.0 * n / total, n / seconds);
      } catch (java.util.concurrent.ExecutionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        throw new LoadException("fill failed: " + cause.getMessage(), cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LoadException("interrupted", e);
      }
    }
  }

  /** One connection's share: keys index, index+connections, ... below the key count. */
  private static final class Filler extends ChannelInboundHandlerAdapter {
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final RequestSource source;
    private final LoadSpec spec;
    private final AtomicLong filled;
    private long nextKey;
    private @Nullable Channel channel; // set by start(), which comes first

    Filler(RequestSource source, int index, LoadSpec spec, AtomicLong filled) {
      this.source = source;
      this.spec = spec;
      this.filled = filled;
      this.nextKey = index;
    }

    ChannelInitializer<Channel> initializer() {
      return new ChannelInitializer<>() {
        @Override
        protected void initChannel(Channel ch) {
          ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(1 << 20), Filler.this);
          LoadTls.addTo(ch, spec);
        }
      };
    }

    private Channel channel() {
      return Objects.requireNonNull(channel, "start() comes first");
    }

    void start(Channel ch) {
      channel = ch;
      ch.eventLoop().execute(this::sendNext);
    }

    private void sendNext() {
      if (nextKey >= spec.keys()) {
        channel().close();
        done.complete(null);
        return;
      }
      send();
    }

    private void send() {
      FullHttpRequest request = source.putOf(nextKey);
      channel().writeAndFlush(request);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (!(msg instanceof FullHttpResponse response)) return;
        int status = response.status().code();
        if (status == 503) {
          ctx.executor().schedule(this::send, RETRY_DELAY_NANOS, TimeUnit.NANOSECONDS);
        } else if (status / 100 == 2) {
          filled.incrementAndGet();
          nextKey += spec.connections();
          sendNext();
        } else {
          done.completeExceptionally(new LoadException("PUT k" + nextKey + " answered " + response.status()));
          ctx.close();
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      done.completeExceptionally(new LoadException("connection to " + spec.url() + " failed at k" + nextKey + ": " + cause, cause));
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      done.completeExceptionally(new LoadException("the node closed the connection at k" + nextKey));
    }
  }
}
