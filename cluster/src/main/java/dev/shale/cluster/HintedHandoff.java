package dev.shale.cluster;

import dev.shale.storage.CpuPriority;
import dev.shale.storage.Env;
import dev.shale.storage.ThrottledLog;
import dev.shale.storage.Versions;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Delivers a {@link HintStore}'s hints to their targets in the background, at most {@link
 * HintLimits#deliveriesPerSecond} all targets together, removing each hint once its target took
 * it, and dropping hints older than {@link HintLimits#maxAgeMillis}. A target whose delivery fails
 * is backed off (0.5 s doubling to 2 s) without holding up the others.
 *
 * <p>Thread safety: every public method may be called from any thread. Delivery runs on one
 * thread of its own ({@code shale-hint-delivery}); {@link HintSender#deliver} is called there and
 * must not block.
 *
 * <p>Lifetime: {@link #start} once; {@link #close} stops delivery (deliveries in flight are left
 * to finish or time out; their hints stay, to be delivered again after a restart) and closes the
 * store, which this object owns from its construction.
 */
public final class HintedHandoff implements AutoCloseable {
  /*
   * One thread owns the delivery state (the targets' passes, back-offs, the token bucket, the
   * in-flight counts): no lock. Everything that happens elsewhere reaches it through a queue or a
   * flag and a wake-up (LockSupport.unpark): a delivery's outcome (on the sender's thread), a hint
   * added (on the caller of HintStore.add), a replica seen up (onReplicaUp), close. The thread
   * parks until the first of those or the next moment it has something to do (a token, the end
   * of a back-off, at most IDLE_NANOS).
   *
   * Bounds: at most MAX_IN_FLIGHT deliveries and MAX_IN_FLIGHT_BYTES of hints in flight (always
   * at least one), MAX_IN_FLIGHT_PER_TARGET to one target (one to a backed-off target), and a
   * batch of BATCH_HINTS / BATCH_BYTES read ahead per target: memory stays a few MiB whatever the
   * backlog.
   */
  private static final Logger LOG = System.getLogger(HintedHandoff.class.getName());
  static final int MAX_IN_FLIGHT = 16;
  static final int MAX_IN_FLIGHT_PER_TARGET = 8;
  static final long MAX_IN_FLIGHT_BYTES = 8L << 20;
  static final int BATCH_HINTS = 32;
  static final long BATCH_BYTES = 4L << 20;
  /** A delivery not answered within this counts as failed; see HintLimits.checkTombstoneGrace. */
  public static final long DELIVERY_TIMEOUT_MILLIS = 30_000;
  private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long CLOSE_WAIT_MILLIS = 10_000;

  /**
   * Back-off and timeout settings; tests change them. The default back-off, 0.5 s doubling to 2 s,
   * catches a returning replica up within 2 s with no signal from the coordinator, and a dead
   * one costs one probe every 2 s: one request (a refused connection, or one slot of its own held
   * until the timeout), no thread, nothing taken from the other targets.
   */
  record Timing(long initialBackoffMillis, long maxBackoffMillis, long deliveryTimeoutMillis) {
    static final Timing DEFAULT = new Timing(500, 2_000, DELIVERY_TIMEOUT_MILLIS);
  }

  /** A delivery's end, handed from the sender's thread to the delivery thread. */
  /** {@code never}: the replica refused it for a reason that will not pass ({@link HintNotDelivered#never}). */
  private record Outcome(DeliveryTarget target, Hint hint, long sizeBytes, int generation, boolean delivered, @Nullable String failure,
      boolean never) {}

  private final HintStore store;
  private final HintSender sender;
  private final HintLimits limits;
  private final Timing timing;
  private final Env env; // the store's: delivery's clock, thread and parking
  private volatile @Nullable Thread thread; // set once, by start(); unpark(null) does nothing
  private final Map<NodeAddress, DeliveryTarget> targets = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
  private final LongAdder delivered = new LongAdder();
  private final LongAdder droppedTooOld = new LongAdder();
  private final LongAdder droppedTooFarAhead = new LongAdder();
  private final LongAdder failedAttempts = new LongAdder();
  private final ThrottledLog failures = new ThrottledLog(LOG, Level.WARNING, 10_000);
  private final ThrottledLog drops = new ThrottledLog(LOG, Level.WARNING, 10_000);
  private volatile boolean closed;
  private volatile boolean wakeRequested;
  private boolean started; // guarded by this

  // Owned by the delivery thread.
  private final TokenBucket bucket; // full at first: made here or when the thread starts is the same
  private final List<DeliveryTarget> order = new ArrayList<>();
  private int nextIndex;
  private int inFlight;
  private long inFlightBytes;
  private long lastSweepMillis = Long.MIN_VALUE / 2;

  /**
   * Delivery of {@code store}'s hints through {@code sender}, by {@code limits}' rate and age
   * (normally the limits the store was opened with: the store refuses hints by its own age limit,
   * delivery drops them by this one).
   */
  public HintedHandoff(HintStore store, HintSender sender, HintLimits limits) {
    this(store, sender, limits, Timing.DEFAULT);
  }

  HintedHandoff(HintStore store, HintSender sender, HintLimits limits, Timing timing) {
    this.store = store;
    this.sender = sender;
    this.limits = limits;
    this.timing = timing;
    this.env = store.env();
    this.bucket = new TokenBucket(limits.deliveriesPerSecond(), env.nanoTime());
  }

  /** Starts delivering, on a thread of its own. Once only. */
  public synchronized void start() {
    startDriven();
    thread = env.startDaemon("shale-hint-delivery", CpuPriority.NORMAL,
        (t, e) -> LOG.log(Level.ERROR, "hint delivery died; hints are kept but no longer delivered until restart", e),
        this::run);
  }

  /**
   * Starts delivering without a thread of its own: the caller runs every round with {@link
   * #deliverRound}, as often as it says (the simulator does, in its virtual time, on its one
   * thread). Once only, and instead of {@link #start}.
   */
  public synchronized void startDriven() {
    if (closed) throw new IllegalStateException("hinted handoff is closed");
    if (started) throw new IllegalStateException("hinted handoff already started");
    started = true;
    store.onAdd(this::wake);
  }

  /**
   * One round of the delivery thread's loop: drops hints past their age, applies the outcomes
   * that came in, and sends what the tokens and in-flight bounds allow. Returns the nanoseconds
   * until the next round is due, unless something wakes delivery sooner (a hint added, an
   * outcome, a replica seen up). Called by the delivery thread, or by the one caller of a
   * {@link #startDriven} handoff: never by two threads.
   */
  public long deliverRound() {
    try {
      sweepIfDue();
      return sendWhatCan();
    } catch (RuntimeException e) {
      failures.log("hint delivery: " + e + "; trying again in a second");
      return IDLE_NANOS;
    }
  }

  /**
   * Tells delivery that {@code target} answered a request: if its hints are backed off, they go
   * out at once rather than at the end of the back-off. Cheap (a map lookup and a flag); the
   * coordinator may call it on every answer of a replica.
   */
  public void onReplicaUp(NodeAddress target) {
    DeliveryTarget t = targets.get(target);
    if (t != null && t.isBackingOff()) {
      t.signalUp();
      wake();
    }
  }

  /** Hints delivered (their target stored them) since this object was made. */
  public long delivered() {
    return delivered.sum();
  }

  /** Hints dropped because their replica refused them for good: their version is beyond the version-skew bound. */
  public long droppedTooFarAhead() {
    return droppedTooFarAhead.sum();
  }

  /** Hints dropped unsent because they were older than {@link HintLimits#maxAgeMillis}. */
  public long droppedTooOld() {
    return droppedTooOld.sum();
  }

  /** Deliveries that failed (false, an exception, or no answer within the delivery timeout). */
  public long failedAttempts() {
    return failedAttempts.sum();
  }

  /** Stops delivery within moments and closes the store. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) return;
      closed = true;
    }
    Thread thread = this.thread;
    LockSupport.unpark(thread);
    if (thread != null && thread.isAlive()) joinQuietly(thread);
    store.close();
  }

  // ---- the delivery thread ----

  private void run() {
    while (!closed) {
      long parkNanos = deliverRound();
      if (!wakeRequested && !closed) env.parkNanos(this, parkNanos);
      wakeRequested = false;
    }
  }

  /** Sends hints while tokens, in-flight room and ready targets allow; returns how long to park. */
  private long sendWhatCan() {
    refreshTargets();
    while (!closed) {
      // Outcomes first: a sender that fails at once backs its target off before the next send.
      applyOutcomes();
      if (inFlight >= MAX_IN_FLIGHT || inFlightBytes >= MAX_IN_FLIGHT_BYTES) return IDLE_NANOS; // an outcome wakes us
      long now = env.nanoTime();
      long tokenWaitNanos = bucket.nanosUntilAvailable(now);
      if (tokenWaitNanos > 0) return tokenWaitNanos;
      DeliveryTarget target = nextReadyTarget(now);
      if (target == null) return nanosUntilSomeTargetIsReady(now);
      Hint hint = nextHint(target); // null: the batch held only expired hints; look again
      if (hint != null) send(target, hint, now);
    }
    return 0;
  }

  /** The next target, round robin, that may be sent to and has a hint to send. */
  private @Nullable DeliveryTarget nextReadyTarget(long now) {
    for (int i = 0; i < order.size(); i++) {
      DeliveryTarget t = order.get((nextIndex + i) % order.size());
      t.applyUpSignal(now);
      if (t.maySend(now, MAX_IN_FLIGHT_PER_TARGET) && hasHintToSend(t, now)) {
        nextIndex = (nextIndex + i + 1) % order.size();
        return t;
      }
    }
    return null;
  }

  /** Whether {@code t}'s pass has a hint left, reading its next batch (or starting a pass) if needed. */
  private boolean hasHintToSend(DeliveryTarget t, long now) {
    if (t.mayStartPass(now) && store.pendingHints(t.address) > 0) t.startPass();
    if (t.needsBatch()) t.takeBatch(store.read(t.address, t.cursor(), BATCH_HINTS, BATCH_BYTES), now, IDLE_NANOS);
    return t.hasBatched();
  }

  /** The next hint of {@code t}'s batch that is young enough to send; expired ones are dropped. */
  private @Nullable Hint nextHint(DeliveryTarget t) {
    for (Hint hint = t.poll(); hint != null; hint = t.poll()) {
      // Checked as the hint leaves, so that no hint older than the limit is ever delivered: the
      // data store's tombstone grace period counts on it.
      if (!isExpired(hint.version(), store.wallClockMillis())) return hint;
      dropExpired(hint);
      if (closed) return null;
    }
    return null;
  }

  private void send(DeliveryTarget target, Hint hint, long now) {
    long sizeBytes = sizeBytes(hint);
    int generation = target.generation();
    bucket.take(deliveryUnits(hint), now);
    target.sent();
    inFlight++;
    inFlightBytes += sizeBytes;
    withTimeout(startDelivery(hint)).whenComplete((ok, error) -> {
      boolean stored = error == null && Boolean.TRUE.equals(ok);
      String failure = stored ? null : failureReason(error);
      boolean never = error != null && cause(error) instanceof HintNotDelivered refused && refused.isNever();
      outcomes.add(new Outcome(target, hint, sizeBytes, generation, stored, failure, never));
      wake();
    });
  }

  /**
   * The words of a failed delivery's warning: the sender's reason when it gave one, else what the
   * outcome says. Never that the replica "did not store" a hint it may never have seen.
   */
  private String failureReason(@Nullable Throwable error) {
    if (error == null) return "the sender reported it undelivered, without a reason";
    Throwable cause = cause(error);
    return switch (cause) {
      case HintNotDelivered notDelivered -> String.valueOf(notDelivered.getMessage());
      case TimeoutException ignored -> "no outcome within " + timing.deliveryTimeoutMillis() + " ms";
      default -> cause.toString();
    };
  }

  /** What a delivery failed with: {@code error}, or the cause a completion wrapped it in. */
  private static Throwable cause(Throwable error) {
    Throwable cause = error.getCause();
    return error instanceof CompletionException && cause != null ? cause : error;
  }

  private CompletionStage<Boolean> startDelivery(Hint hint) {
    try {
      CompletionStage<Boolean> stage = sender.deliver(hint);
      return stage != null ? stage : CompletableFuture.failedFuture(new NullPointerException("the sender returned no stage"));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** A future that ends with {@code stage}, or fails after the delivery timeout if it does not. */
  private CompletableFuture<Boolean> withTimeout(CompletionStage<Boolean> stage) {
    CompletableFuture<Boolean> timed = new CompletableFuture<Boolean>().orTimeout(timing.deliveryTimeoutMillis(), TimeUnit.MILLISECONDS);
    stage.whenComplete((ok, error) -> {
      if (error != null) timed.completeExceptionally(error);
      else timed.complete(ok);
    });
    return timed;
  }

  private void applyOutcomes() {
    for (Outcome o = outcomes.poll(); o != null; o = outcomes.poll()) {
      o.target().done();
      inFlight--;
      inFlightBytes -= o.sizeBytes();
      if (o.delivered()) recordDelivery(o);
      else if (o.never()) dropRefused(o);
      else recordFailure(o);
    }
  }

  private void recordDelivery(Outcome o) {
    delivered.increment();
    if (o.target().succeeded()) LOG.log(Level.INFO, "hints for " + o.target().address.id() + ": delivered again");
    try {
      store.remove(o.hint()); // false: a newer hint of the key came meanwhile, and stays
    } catch (RuntimeException e) {
      // The hint stays and is delivered again later: harmless, the replica keeps the newest version.
      failures.log("hints for " + o.target().address.id() + ": could not remove delivered " + o.hint() + ": " + e);
    }
  }

  private void recordFailure(Outcome o) {
    failedAttempts.increment();
    long backoffMillis = o.target().failed(o.generation(), env.nanoTime(), timing.initialBackoffMillis(), timing.maxBackoffMillis());
    failures.log("hints for " + o.target().address.id() + ": delivery of " + o.hint() + " failed (" + o.failure()
        + "); backing off " + backoffMillis + " ms, " + store.pendingHints(o.target().address) + " hints pending");
  }

  /**
   * The replica refused the hint for good (its version is beyond the version-skew bound:
   * docs/design.md, "Clock offsets"): kept, it would be admitted once time caught up with it, and
   * replace writes acknowledged meanwhile. The replica answered, so its back-off does not grow.
   */
  private void dropRefused(Outcome o) {
    o.target().succeeded();
    if (!store.remove(o.hint())) return; // a newer hint of the key came meanwhile, and stays
    droppedTooFarAhead.increment();
    drops.log("hints for " + o.target().address.id() + ": dropped " + o.hint() + ", which it refuses for good (" + o.failure() + ")");
  }

  private void dropExpired(Hint hint) {
    if (!store.remove(hint)) return;
    droppedTooOld.increment();
    drops.log("hints for " + hint.target().id() + ": dropped " + hint + ", older than the hint age limit of "
        + limits.maxAgeMillis() + " ms (written at " + Versions.physicalMillis(hint.version()) + " ms)");
  }

  /**
   * Removes expired hints of every target, when the oldest pending one expired and the last sweep
   * is a tenth of the age limit ago (between 1 s and 10 min): a sweep reads the whole store, and
   * delivery drops expired hints it meets anyway; the sweep frees the room of hints for targets
   * that stay down.
   */
  private void sweepIfDue() {
    long nowMillis = store.wallClockMillis();
    long oldest = store.oldestVersion();
    long intervalMillis = Math.clamp(limits.maxAgeMillis() / 10, 1_000L, 600_000L);
    if (oldest == Long.MAX_VALUE || !isExpired(oldest, nowMillis) || nowMillis - lastSweepMillis < intervalMillis) return;
    lastSweepMillis = nowMillis;
    List<Hint> removed = store.removeExpired(nowMillis, limits.maxAgeMillis(), () -> closed);
    if (removed.isEmpty()) return;
    droppedTooOld.add(removed.size());
    LOG.log(Level.WARNING, "hints: dropped " + removed.size() + " hints older than the hint age limit of "
        + limits.maxAgeMillis() + " ms, for " + removed.stream().map(h -> h.target().id()).distinct().toList());
  }

  private boolean isExpired(long version, long nowMillis) {
    return HintStore.isOlderThan(version, nowMillis, limits.maxAgeMillis());
  }

  private void refreshTargets() {
    long now = env.nanoTime();
    for (NodeAddress address : store.targets()) {
      if (!targets.containsKey(address)) {
        DeliveryTarget t = new DeliveryTarget(address, now);
        targets.put(address, t);
        order.add(t);
      }
    }
  }

  private long nanosUntilSomeTargetIsReady(long now) {
    long wait = IDLE_NANOS;
    for (DeliveryTarget t : order) {
      long untilReady = t.readyAtNanos() - now;
      if (untilReady > 0) wait = Math.min(wait, untilReady);
    }
    return wait;
  }

  private void wake() {
    wakeRequested = true;
    LockSupport.unpark(thread);
  }

  private void joinQuietly(Thread thread) {
    try {
      env.join(thread, CLOSE_WAIT_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) LOG.log(Level.WARNING, "hint delivery did not stop within " + CLOSE_WAIT_MILLIS + " ms");
  }

  static long sizeBytes(Hint hint) {
    return hint.key().length + (hint.value() == null ? 0 : (long) hint.value().length) + HintFormat.VERSION_BYTES;
  }

  /** Tokens a delivery costs: one per started {@link HintLimits#DELIVERY_UNIT_BYTES} of its value. */
  static int deliveryUnits(Hint hint) {
    int valueBytes = hint.value() == null ? 0 : hint.value().length;
    return Math.max(1, (valueBytes + HintLimits.DELIVERY_UNIT_BYTES - 1) / HintLimits.DELIVERY_UNIT_BYTES);
  }
}
