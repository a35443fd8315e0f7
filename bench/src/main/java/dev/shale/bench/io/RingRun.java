package dev.shale.bench.io;

import dev.shale.storage.RingReads;
import dev.shale.storage.Vfs;
import dev.shale.storage.uring.IoUring;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;

/**
 * {@link IoMode#URING}: one thread keeps {@code depth} direct reads of random blocks in flight on
 * an {@link IoUring}: it submits what it queued and waits for at least one completion in one
 * system call, reaps every completion there, copies each block out of its aligned buffer (as
 * the pread path copies out of its thread's) and queues the next read in the freed slot.
 *
 * <p>The ring is made on the caller's thread, so that a host without io_uring is reported before
 * any thread starts; the reading thread owns it from its start to its end, and the caller closes
 * it after joining that thread.
 */
final class RingRun implements IoUring.Completions {
  private final IoBenchConfig config;
  private final Vfs.ReadableFile file;
  private final IoUring ring;
  private final Window window;
  private final MemorySegment[] buffers; // one aligned block per slot; slot i's read carries userData i
  private final long[] issuedAt;
  private final MemorySegment target;
  private final SplittableRandom random;
  private final Histogram latency = new Histogram(3);
  private long reads;

  private RingRun(IoBenchConfig config, Vfs.ReadableFile file, IoUring ring, Window window, Arena arena) {
    this.config = config;
    this.file = file;
    this.ring = ring;
    this.window = window;
    this.buffers = new MemorySegment[config.depth()];
    for (int i = 0; i < buffers.length; i++) buffers[i] = arena.allocate(config.blockBytes(), RingReads.ALIGNMENT);
    this.issuedAt = new long[config.depth()];
    this.target = arena.allocate(config.blockBytes());
    this.random = new SplittableRandom(config.seed());
  }

  /** Runs the mode; throws {@link dev.shale.storage.uring.IoUringUnavailableException} where there is no io_uring. */
  static IoResult run(IoBenchConfig config, Vfs.ReadableFile file) throws IOException, InterruptedException {
    ThreadCost[] cost = {ThreadCost.ZERO};
    long[] reads = {0};
    Histogram[] latency = {new Histogram(3)};
    Window window;
    Readers.ProcessCost process;
    // The arena first, so that it outlives the ring: closing the ring waits for the reads still
    // in flight (a loop that failed), which the kernel writes into the arena's buffers.
    try (Arena arena = Arena.ofShared(); IoUring ring = IoUring.open(config.depth())) {
      window = Window.startingNow(config.warmupMillis(), config.durationMillis());
      RingRun run = new RingRun(config, file, ring, window, arena);
      process = Readers.run("bench-uring", 1, window, index -> {
        cost[0] = run.loop();
        reads[0] = run.reads;
        latency[0] = run.latency;
      });
    }
    return IoResult.ran(IoMode.URING, config.depth(), reads[0], window.seconds(), latency[0], cost[0], process);
  }

  // The reading thread: the cost of its reads in the window.
  private ThreadCost loop() throws IOException {
    for (int slot = 0; slot < buffers.length; slot++) queue(slot);
    ThreadCost start = null;
    while (ring.inFlight() > 0) {
      if (start == null && System.nanoTime() >= window.measureFromNanos()) start = ThreadCost.ofCurrentThread();
      ring.submitAndWait(1);
      ring.reap(this);
    }
    return start == null ? ThreadCost.ZERO : ThreadCost.ofCurrentThread().since(start);
  }

  private void queue(int slot) {
    long position = random.nextLong(config.blocks()) * config.blockBytes();
    issuedAt[slot] = System.nanoTime();
    if (!RingReads.queueDirect(ring, file, buffers[slot], position, config.blockBytes(), slot)) {
      throw new IllegalStateException("the ring of " + ring.entries() + " refused read " + (ring.inFlight() + 1));
    }
  }

  @Override
  public void completed(long userData, int result) {
    int slot = (int) userData;
    long now = System.nanoTime();
    if (result != config.blockBytes()) {
      throw new IllegalStateException("a read of " + config.blockBytes() + " bytes completed with " + result
          + (result < 0 ? " (-errno)" : " bytes"));
    }
    if (issuedAt[slot] >= window.measureFromNanos() && now <= window.endNanos()) {
      latency.recordValue(now - issuedAt[slot]);
      reads++;
    }
    MemorySegment.copy(buffers[slot], 0, target, 0, config.blockBytes());
    if (now < window.endNanos()) queue(slot);
  }
}
