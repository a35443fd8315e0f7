package dev.shale.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs one {@link LoadSpec}: connects every connection, then drives them on wrk2's model (see
 * {@link ConnectionDriver}) through the warmup and the measured interval, and merges what they
 * recorded. Connection i's first request is due i/rate seconds after connection 0's, so the
 * connections' requests interleave evenly instead of leaving in bursts.
 */
public final class LoadRun {
  /** Time from the end of connecting to the first request: every loop has its schedule by then. */
  static final long START_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private LoadRun() {}

  /** Runs {@code spec}; {@code listener} hears the start and end of the measured interval. */
  public static LoadResult run(LoadSpec spec, MeasurementListener listener) throws LoadException {
    EventLoopGroup group = EventLoops.group(spec.threads());
    try {
      return run(spec, listener, group);
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private static LoadResult run(LoadSpec spec, MeasurementListener listener, EventLoopGroup group) throws LoadException {
    List<ConnectionDriver> drivers = connectAll(spec, group);
    long intervalNanos = Math.max(1, Math.round(spec.connections() * 1e9 / spec.rate()));
    long start = System.nanoTime() + START_DELAY_NANOS;
    long windowStart = start + spec.warmup().toNanos();
    long end = windowStart + spec.duration().toNanos();
    for (int i = 0; i < drivers.size(); i++) {
      drivers.get(i).start(start + Math.round(i * 1e9 / spec.rate()), intervalNanos, windowStart, end);
    }
    parkUntil(windowStart);
    long cpuAtStart = processCpuNanos();
    listener.measurementStarted();
    parkUntil(end);
    long cpuNanos = processCpuNanos() - cpuAtStart;
    listener.measurementEnded();
    List<Recorder> recorders = awaitDrivers(drivers, spec.timeout());
    return merge(spec, recorders, cpuNanos);
  }

  private static List<ConnectionDriver> connectAll(LoadSpec spec, EventLoopGroup group) throws LoadException {
    Bootstrap bootstrap = EventLoops.bootstrap(group, spec.url());
    ZipfianKeys zipf = needsZipf(spec) ? new ZipfianKeys(spec.keys()) : null;
    ValuePool values = new ValuePool(spec.valueSizeBytes(), spec.seed());
    List<EventLoop> loops = loops(group, spec.threads());
    int windowSeconds = (int) Math.ceil(spec.duration().toNanos() / 1e9);
    List<LatencyTimeline> timelines = new ArrayList<>(); // one per loop: its connections share it
    for (int t = 0; t < loops.size(); t++) timelines.add(new LatencyTimeline(windowSeconds));
    List<ConnectionDriver> drivers = new ArrayList<>();
    List<ChannelFuture> connecting = new ArrayList<>();
    for (int i = 0; i < spec.connections(); i++) {
      ConnectionDriver driver = new ConnectionDriver(loops.get(i % loops.size()), bootstrap,
          new RequestSource(spec, i, zipf, values), new Recorder(windowSeconds, timelines.get(i % loops.size())));
      drivers.add(driver);
      connecting.add(driver.connect());
    }
    for (ChannelFuture future : connecting) {
      if (!future.awaitUninterruptibly().isSuccess()) {
        connecting.forEach(f -> f.channel().close());
        throw new LoadException("cannot connect to " + spec.url() + ": " + future.cause(), future.cause());
      }
    }
    return drivers;
  }

  /**
   * Waits for every connection's last answer; after {@code timeout} past the end, the ones still
   * unanswered count as timeouts.
   */
  private static List<Recorder> awaitDrivers(List<ConnectionDriver> drivers, Duration timeout) throws LoadException {
    drivers.forEach(ConnectionDriver::endIfIdle);
    CompletableFuture<Void> all = CompletableFuture.allOf(drivers.stream().map(d -> d.done).toArray(CompletableFuture[]::new));
    try {
      all.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      drivers.forEach(ConnectionDriver::abandon);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LoadException("interrupted", e);
    } catch (ExecutionException e) {
      throw new LoadException("a connection failed: " + e.getCause(), e.getCause());
    }
    return drivers.stream().map(d -> d.done.join()).toList();
  }

  private static LoadResult merge(LoadSpec spec, List<Recorder> recorders, long cpuNanos) {
    int seconds = recorders.getFirst().answersPerSecond.length;
    LatencyTimeline timeline = new LatencyTimeline(seconds);
    Recorder total = new Recorder(seconds, timeline);
    recorders.stream().map(r -> r.timeline).distinct().forEach(timeline::add);
    List<long[]> perThread = new ArrayList<>();
    for (int t = 0; t < spec.threads(); t++) perThread.add(new long[seconds]);
    for (int i = 0; i < recorders.size(); i++) {
      Recorder r = recorders.get(i);
      total.add(r);
      long[] thread = perThread.get(i % spec.threads());
      for (int s = 0; s < seconds; s++) thread[s] += r.answersPerSecond[s];
    }
    return new LoadResult(spec, total.latencyMicros, total.answeredInWindow, total.bytesRead, spec.duration(),
        total.statuses(), new LoadResult.SocketErrors(total.connectErrors, total.readErrors, total.writeErrors,
            total.timeouts), total.unsent, perThread, timeline.seconds(), cpuNanos);
  }

  /** CPU time of this process so far (all threads: the event loops and the GC alike). */
  static long processCpuNanos() {
    return ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
  }

  /** Waits for a point of the run's schedule (not a test sleep: the run lasts this long). */
  private static void parkUntil(long deadlineNanos) {
    for (long left; (left = deadlineNanos - System.nanoTime()) > 0; ) LockSupport.parkNanos(left);
  }

  private static boolean needsZipf(LoadSpec spec) {
    return spec.distribution() == LoadSpec.KeyDistribution.ZIPF
        && (spec.workload() == Workload.GET || spec.workload() == Workload.MIXED || spec.workload() == Workload.RANGE);
  }

  private static List<EventLoop> loops(EventLoopGroup group, int count) {
    List<EventLoop> loops = new ArrayList<>();
    Iterator<?> it = group.iterator();
    while (loops.size() < count && it.hasNext()) loops.add((EventLoop) it.next());
    return loops;
  }
}
