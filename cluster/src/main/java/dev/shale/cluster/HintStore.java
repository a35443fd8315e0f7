package dev.shale.cluster;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Env;
import dev.shale.storage.Keys;
import dev.shale.storage.SyncMode;
import dev.shale.storage.ThrottledLog;
import dev.shale.storage.Versions;
import dev.shale.storage.WriteStallException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A coordinator's durable hints: writes kept for replicas that did not take them, until
 * {@link HintedHandoff} delivers them. Only the newest hint of a (target, key) is kept.
 *
 * <p>Thread safety: every method may be called from any number of threads at once. {@link #add}
 * blocks for one engine read and one engine write (an fsync in {@link SyncMode#ALWAYS}), as a
 * local PUT does: call it where storage calls are made, not on an event loop.
 *
 * <p>Lifetime: {@link #close} closes the engine; later calls throw {@link
 * dev.shale.storage.StorageException}. {@link HintedHandoff#close} closes its store.
 */
public final class HintStore implements AutoCloseable {
  /*
   * Layout: docs/format.md, "Hints". The store is an Engine of its own, so the log, recovery and
   * compaction are the data store's; this class adds the meaning of a record and the bounds.
   *
   * Accounting: pendingBytes and each target's tally count the hints a read would return (the
   * winning record of each hint key, when it is not a removal tombstone). A change to a key's
   * winning record (add, remove) is a read and a write of the engine under that key's stripe lock,
   * and its accounting is done under the same lock, so two changes of one key never interleave
   * and the sums stay exact; changes of different keys meet only in atomic counters.
   */
  /** One target's pending hints and their bytes (see {@link HintLimits#maxBytes}). */
  public record Pending(long hints, long bytes) {}

  private static final Logger LOG = System.getLogger(HintStore.class.getName());
  private static final int STRIPES = 64;
  /** A small memtable: hints are few while replicas are up, and the heap is the data store's. */
  private static final long MEMTABLE_BYTES = 4L << 20;

  private final Path directory;
  private final Engine engine;
  private final HintLimits limits;
  private final Env env; // the wall clock behind hint ages; the engine's own too
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
  private final ConcurrentHashMap<NodeAddress, byte[]> prefixes = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<NodeAddress, Tally> tallies = new ConcurrentHashMap<>();
  private final AtomicLong pendingBytes = new AtomicLong();
  // Invariant: <= the version of every pending hint (Long.MAX_VALUE: none), so that an expiry
  // sweep is due once this one is too old. See removeExpired for how a sweep keeps it.
  private final AtomicLong oldestVersion = new AtomicLong(Long.MAX_VALUE);
  private final LongAdder refusedFull = new LongAdder();
  private final LongAdder refusedTooOld = new LongAdder();
  private final LongAdder refusedOverloaded = new LongAdder();
  private final ThrottledLog refusals = new ThrottledLog(LOG, Level.WARNING, 10_000);
  private volatile Runnable onAdd = () -> {};

  private HintStore(Path directory, Engine engine, HintLimits limits, Env env) {
    this.directory = directory;
    this.engine = engine;
    this.limits = limits;
    this.env = env;
    for (int i = 0; i < STRIPES; i++) stripes[i] = new ReentrantLock();
  }

  /**
   * Opens (creating if needed) the hint store in {@code dir}, a directory of its own, and counts
   * its hints. Each {@link #add} is durable as {@code sync} says when it returns. Its files, and
   * the wall clock behind hint ages, come from {@code env}.
   */
  public static HintStore open(Path dir, HintLimits limits, SyncMode sync, Env env) {
    EngineOptions options = EngineOptions.defaults()
        .withEnv(env)
        .withSyncMode(sync)
        .withMemtableSizeBytes(MEMTABLE_BYTES)
        // A removal tombstone hides only a delivered hint; once compaction finds nothing older
        // under it (the engine's rule 2), it has nothing left to do.
        .withTombstoneGraceMillis(0)
        // Hints are read by scans, which do not fill a block cache: it would only take heap.
        .withBlockCacheBytes(0);
    Engine engine = Engine.open(dir, options);
    HintStore store = new HintStore(dir, engine, limits, env);
    try {
      store.recount();
    } catch (RuntimeException | Error e) {
      engine.close();
      throw e;
    }
    return store;
  }

  /**
   * Keeps a hint of a write for {@code target}: the key, the value (null: a tombstone) and the
   * write's version. Returns true once the hint is stored (durable as the store's SyncMode says),
   * or when the store already holds this write or a newer one of the key for that target; false
   * when it refuses the hint because it is full, the write is already older than {@link
   * HintLimits#maxAgeMillis}, or the engine is overloaded (each counted, and logged at most once
   * per 10 s). Never throws for those; throws {@link dev.shale.storage.StorageException} when
   * the engine fails, and IllegalArgumentException for a key or value no hint can carry.
   *
   * <p>The arrays are copied: the caller keeps them.
   */
  public boolean add(NodeAddress target, byte[] key, byte @Nullable [] value, long version) {
    return add(target, key, value, version, Entry.NEVER);
  }

  /** {@link #add(NodeAddress, byte[], byte[], long)} of a value expiring at {@code expiresAtMillis}. */
  public boolean add(NodeAddress target, byte[] key, byte @Nullable [] value, long version, long expiresAtMillis) {
    if (key.length == 0) throw new IllegalArgumentException("a hint's key must not be empty");
    if (version < 0) throw new IllegalArgumentException("a hint's version must be >= 0: " + version);
    if (isExpired(version, env.wallMillis())) {
      refusedTooOld.increment();
      refusals.log(directory + ": refused a hint for " + target.id() + " of key " + Keys.toDisplay(key)
          + ": the write is older than the hint age limit of " + limits.maxAgeMillis() + " ms");
      return false;
    }
    Entry fresh = new Entry(HintFormat.key(prefix(target), key), version, HintFormat.value(value, expiresAtMillis));
    if (!storeIfNewest(target, fresh)) return false;
    onAdd.run();
    return true;
  }

  /** Hints pending per target, for status pages; targets without hints are left out. */
  public Map<NodeAddress, Pending> pendingByTarget() {
    Map<NodeAddress, Pending> pending = new TreeMap<>((a, b) -> a.id().compareTo(b.id()));
    tallies.forEach((target, tally) -> {
      Pending p = tally.snapshot();
      if (p.hints() > 0) pending.put(target, p);
    });
    return pending;
  }

  /** Hints pending for {@code target}. */
  long pendingHints(NodeAddress target) {
    Tally tally = tallies.get(target);
    return tally == null ? 0 : tally.hints.get();
  }

  /** Hints pending, all targets together. */
  public long pendingHints() {
    return tallies.values().stream().mapToLong(t -> t.hints.get()).sum();
  }

  /** Bytes of the pending hints, as counted against {@link HintLimits#maxBytes}. */
  public long pendingBytes() {
    return pendingBytes.get();
  }

  /** Hints refused because the store was full. */
  public long refusedFull() {
    return refusedFull.sum();
  }

  /** Hints refused because their write was already older than {@link HintLimits#maxAgeMillis}. */
  public long refusedTooOld() {
    return refusedTooOld.sum();
  }

  /** Hints refused because the engine stalled the write (overloaded). */
  public long refusedOverloaded() {
    return refusedOverloaded.sum();
  }

  /** Closes the engine (fsyncing its log). Idempotent. */
  @Override
  public void close() {
    engine.close();
  }

  // ---- for HintedHandoff ----

  long wallClockMillis() {
    return env.wallMillis();
  }

  /** The environment the store was opened in: its delivery runs in the same. */
  Env env() {
    return env;
  }

  /** Runs {@code listener} after every hint stored, on the thread that stored it. */
  void onAdd(Runnable listener) {
    this.onAdd = listener;
  }

  private boolean isExpired(long version, long nowMillis) {
    return isOlderThan(version, nowMillis, limits.maxAgeMillis());
  }

  /** Whether a write at {@code version} is more than {@code maxAgeMillis} old at {@code nowMillis}. */
  static boolean isOlderThan(long version, long nowMillis, long maxAgeMillis) {
    return nowMillis - Versions.physicalMillis(version) > maxAgeMillis;
  }

  /** A version at or below every pending hint's (Long.MAX_VALUE: none pending). */
  long oldestVersion() {
    return oldestVersion.get();
  }

  /** The targets with pending hints. */
  List<NodeAddress> targets() {
    List<NodeAddress> targets = new ArrayList<>();
    tallies.forEach((target, tally) -> {
      if (tally.hints.get() > 0) targets.add(target);
    });
    return targets;
  }

  /**
   * Up to {@code maxHints} of {@code target}'s hints in key order, starting after {@code
   * afterKey} (null: from the first), and fewer once they hold {@code maxBytes} (at least one).
   */
  List<Hint> read(NodeAddress target, byte @Nullable [] afterKey, int maxHints, long maxBytes) {
    byte[] prefix = prefix(target);
    byte[] start = afterKey == null ? prefix : HintFormat.successor(HintFormat.key(prefix, afterKey));
    List<Hint> hints = new ArrayList<>();
    long bytes = 0;
    try (EntryIterator it = engine.scan(start, HintFormat.rangeEnd(prefix), false)) {
      while (hints.size() < maxHints && bytes < maxBytes && it.hasNext()) {
        Entry record = it.next();
        hints.add(HintFormat.decode(target, record));
        bytes += HintFormat.sizeBytes(record.key(), record.value());
      }
    }
    return hints;
  }

  /**
   * Removes {@code hint} if it is still the stored hint of its target and key (a newer one added
   * since stays). Returns whether it removed it.
   */
  boolean remove(Hint hint) {
    byte[] hintKey = HintFormat.key(prefix(hint.target()), hint.key());
    byte[] hintValue = HintFormat.value(hint.value(), hint.expiresAtMillis());
    ReentrantLock lock = stripe(hintKey);
    lock.lock();
    try {
      Entry stored = engine.get(hintKey);
      if (stored == null || stored.isTombstone() || stored.version() != hint.version()
          || !Arrays.equals(stored.value(), hintValue)) {
        return false;
      }
      // A tombstone at the hint's own version wins the tie (docs/format.md, "Hints"): it hides
      // exactly this hint, and a newer one written after it still wins.
      engine.write(hintKey, null, hint.version());
      account(hint.target(), -1, -HintFormat.sizeBytes(hintKey, hintValue));
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Removes every hint more than {@code maxAgeMillis} old at {@code nowMillis}; returns the hints
   * removed. Reads the whole store: {@link HintedHandoff} calls it only when {@link
   * #oldestVersion} says something expired, and at most every so often. Stops early (keeping
   * the bound conservative) once {@code stop} says so.
   */
  List<Hint> removeExpired(long nowMillis, long maxAgeMillis, BooleanSupplier stop) {
    // Adds from now on lower oldestVersion themselves; an add that finished before this reset
    // wrote its record first, so the scan below sees it and lowers it back.
    oldestVersion.set(Long.MAX_VALUE);
    List<Hint> removed = new ArrayList<>();
    long survivorsOldest = Long.MAX_VALUE;
    try (EntryIterator it = engine.scan(new byte[0], null, false)) {
      while (!stop.getAsBoolean() && it.hasNext()) {
        Entry record = it.next();
        if (!isOlderThan(record.version(), nowMillis, maxAgeMillis)) {
          survivorsOldest = Math.min(survivorsOldest, record.version());
          continue;
        }
        Hint hint = HintFormat.decode(record);
        if (remove(hint)) removed.add(hint);
      }
    }
    // A sweep stopped early saw only some survivors: the bound must stay below the unseen ones.
    oldestVersion.accumulateAndGet(stop.getAsBoolean() ? 0 : survivorsOldest, Math::min);
    return removed;
  }

  // ---- internals ----

  @SuppressWarnings("ReferenceEquality") // which of the two objects newer() chose, not equal bytes
  private boolean storeIfNewest(NodeAddress target, Entry fresh) {
    long size = HintFormat.sizeBytes(fresh.key(), fresh.value());
    ReentrantLock lock = stripe(fresh.key());
    lock.lock();
    try {
      Entry stored = engine.get(fresh.key());
      // Only the newest hint matters: a stored hint as new or newer (or the removal of one, which
      // was delivered) already brings the replica this write or a later one.
      if (stored != null && Entry.newer(stored, fresh) == stored) return true;
      Entry replaced = stored == null || stored.isTombstone() ? null : stored;
      boolean replaces = replaced != null;
      long growth = size - (replaced != null ? HintFormat.sizeBytes(replaced.key(), replaced.value()) : 0);
      if (!reserve(growth)) {
        refuse(refusedFull, target, fresh, "the hint store holds " + pendingBytes.get() + " of its "
            + limits.maxBytes() + " bytes");
        return false;
      }
      if (!write(fresh, growth, target)) return false;
      tally(target).add(replaces ? 0 : 1, growth);
    } finally {
      lock.unlock();
    }
    // After the write, so that a sweep that reset the bound before this line saw the record.
    oldestVersion.accumulateAndGet(fresh.version(), Math::min);
    return true;
  }

  private boolean write(Entry fresh, long growth, NodeAddress target) {
    try {
      engine.write(fresh.key(), fresh.value(), fresh.version());
      return true;
    } catch (WriteStallException e) {
      pendingBytes.addAndGet(-growth);
      refuse(refusedOverloaded, target, fresh, "the hint store's engine is overloaded: " + e.getMessage());
      return false;
    } catch (RuntimeException | Error e) {
      pendingBytes.addAndGet(-growth);
      throw e;
    }
  }

  /** Adds {@code growth} to pendingBytes unless that passes maxBytes; shrinking always succeeds. */
  private boolean reserve(long growth) {
    while (true) {
      long current = pendingBytes.get();
      if (growth > 0 && current + growth > limits.maxBytes()) return false;
      if (pendingBytes.compareAndSet(current, current + growth)) return true;
    }
  }

  /** Counts a hint in (or, with negative deltas, out of) its target's tally and the total. */
  private void account(NodeAddress target, int hintsDelta, long bytesDelta) {
    tally(target).add(hintsDelta, bytesDelta);
    pendingBytes.addAndGet(bytesDelta);
  }

  private void refuse(LongAdder counter, NodeAddress target, Entry fresh, String why) {
    counter.increment();
    refusals.log(directory + ": refused a hint for " + target.id() + " at version " + fresh.version() + ": " + why);
  }

  /** Counts the hints on disk at open: the bounds hold across restarts. */
  private void recount() {
    long started = env.nanoTime();
    try (EntryIterator it = engine.scan(new byte[0], null, false)) {
      while (it.hasNext()) {
        Entry record = it.next();
        Hint hint = HintFormat.decode(record);
        long size = HintFormat.sizeBytes(record.key(), record.value());
        account(hint.target(), 1, size);
        oldestVersion.accumulateAndGet(record.version(), Math::min);
      }
    }
    if (pendingBytes.get() > 0) {
      LOG.log(Level.INFO, directory + ": " + pendingHints() + " hints pending (" + pendingBytes.get() + " bytes) for "
          + pendingByTarget().keySet() + ", counted in " + (env.nanoTime() - started) / 1_000_000 + " ms");
    }
  }

  private byte[] prefix(NodeAddress target) {
    return prefixes.computeIfAbsent(target, HintFormat::prefix);
  }

  private Tally tally(NodeAddress target) {
    return tallies.computeIfAbsent(target, t -> new Tally());
  }

  private ReentrantLock stripe(byte[] hintKey) {
    return stripes[Math.floorMod(Arrays.hashCode(hintKey), STRIPES)];
  }

  /** One target's pending hints; each field changes atomically, the pair is read as a snapshot. */
  private static final class Tally {
    final AtomicLong hints = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();

    void add(int hintsDelta, long bytesDelta) {
      hints.addAndGet(hintsDelta);
      bytes.addAndGet(bytesDelta);
    }

    Pending snapshot() {
      return new Pending(hints.get(), bytes.get());
    }
  }
}
