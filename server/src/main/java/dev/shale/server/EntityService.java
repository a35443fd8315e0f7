package dev.shale.server;

import dev.shale.server.http.IdDecoder;
import dev.shale.server.http.InvalidRequestException;
import dev.shale.storage.CorruptionException;
import dev.shale.storage.DiskFullException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineHealth;
import dev.shale.storage.EngineStats;
import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Keys;
import dev.shale.storage.MemoryRead;
import dev.shale.storage.ReadRecord;
import dev.shale.storage.StorageException;
import dev.shale.storage.ThrottledLog;
import dev.shale.storage.Versions;
import dev.shale.storage.WriteStallException;
import java.lang.System.Logger.Level;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The entity API in plain Java: turns an id into a key and reads, stores or deletes it in the
 * {@link Engine}. Knows nothing of HTTP or Netty.
 *
 * <p>Thread safe: it holds only the engine, which is.
 *
 * <p>Failures come back as results, never as exceptions, so that every call gets an answer: a
 * {@link WriteStallException} is {@link EntityResult.Outcome#OVERLOADED}; any other failure is
 * {@link EntityResult.Outcome#FAILED} with a one-line reason, logged here (at most once per
 * operation and reason per {@link ThrottledLog#DEFAULT_INTERVAL_MILLIS}).
 */
public final class EntityService {
  /** The longest id, in bytes of UTF-8; longer ids are refused. Part of the API contract. */
  public static final int MAX_ID_BYTES = 1024;

  // A failure repeats at the request rate (every GET of a corrupt block, every PUT while writes
  // are refused): one line per operation and reason per interval, with the count of repeats.
  private static final ThrottledLog LOG = new ThrottledLog(System.getLogger(EntityService.class.getName()),
      Level.ERROR, ThrottledLog.DEFAULT_INTERVAL_MILLIS);

  private final Engine engine;
  private final Env env; // the node's: the clock a compaction is timed on
  private final MemoryReadOdds memoryReads = new MemoryReadOdds(); // node-wide, as the engine's caches are

  EntityService(Engine engine, Env env) {
    this.engine = engine;
    this.env = env;
  }

  /**
   * The key named by the {@code id} parameter of {@code rawQuery} (the URI's text after
   * {@code ?}, as received, or null): its percent-decoded UTF-8 bytes.
   *
   * @throws InvalidRequestException when the id is missing, empty, longer than
   *     {@link #MAX_ID_BYTES}, malformed or not UTF-8; the message says which
   */
  public static byte[] keyOf(@Nullable String rawQuery) throws InvalidRequestException {
    return IdDecoder.decodeId(rawQuery, MAX_ID_BYTES);
  }

  /**
   * The value of {@code key}: {@link EntityResult.Outcome#FOUND} or, for no record or a
   * tombstone, {@link EntityResult.Outcome#NOT_FOUND}. A value of at least
   * {@link Engine#LEND_MIN_VALUE_BYTES} is lent by the engine ({@link EntityResult#lent}): the
   * caller hands the result's lease to the answer, or closes it. With the record's version, as a
   * coordinated read answers it: a client's GET says {@code X-Shale-Version} whether one node
   * answered it or a quorum (README, "Versions"), and a tombstone's 404 says it is one.
   */
  public EntityResult get(byte[] key) {
    return call("get", key, () -> answered(engine.read(key)));
  }

  /**
   * {@link #get} (and {@link #readForPeer}) of {@code key} if the engine can answer it from memory,
   * without waiting for the disk ({@link Engine#readFromMemory}), or else null: the caller then
   * calls {@link #get} on a thread that may wait. For an event loop, which answers most reads of
   * a store that fits in memory itself and spares them two thread hand-offs. While most tries
   * lately needed the disk, most calls do not try: null at once ({@link MemoryReadOdds}).
   */
  public @Nullable EntityResult getFromMemory(byte[] key) {
    return fromMemory("get", key, EntityService::answered);
  }

  /** How the reads tried from memory fared ({@link #getFromMemory}, {@link #readFromMemory}). */
  public MemoryReads memoryReads() {
    return memoryReads;
  }

  /** {@link #read} of {@code key} if memory can answer it, as {@link #getFromMemory}; else null. */
  public @Nullable EntityResult readFromMemory(byte[] key) {
    return fromMemory("read", key, EntityService::copiedOut);
  }

  // Null without a try when tries lately needed the disk (MemoryReadOdds).
  private @Nullable EntityResult fromMemory(String operation, byte[] key, Function<@Nullable ReadRecord, EntityResult> answer) {
    if (!memoryReads.worthTrying()) return null;
    EntityResult result = call(operation, key, () -> switch (engine.readFromMemory(key)) {
      case MemoryRead.Answered answered -> answer.apply(answered.record());
      case MemoryRead.NeedsDisk ignored -> NEEDS_DISK;
    });
    memoryReads.tried(result != NEEDS_DISK);
    return result == NEEDS_DISK ? null : result;
  }

  // fromMemory's answer when the engine needs the disk, told apart by identity; never leaves this class.
  private static final EntityResult NEEDS_DISK = EntityResult.failed("the read needs the disk");

  /**
   * The newest record of {@code key} with its version, for a peer's replica read answered over
   * the wire: a value (lent as {@link #get} lends it), a tombstone, or nothing.
   */
  public EntityResult readForPeer(byte[] key) {
    return call("read", key, () -> answered(engine.read(key)));
  }

  /**
   * The newest record of {@code key} with its version: a value (copied), a tombstone, or nothing.
   * For the coordinator's own replica, whose answer is merged with the peers' in memory.
   */
  public EntityResult read(byte[] key) {
    return call("read", key, () -> {
      Entry entry = engine.get(key);
      return entry == null ? EntityResult.NOT_FOUND : copied(entry);
    });
  }

  // A record with its version: a tombstone, or a value already on the heap.
  private static EntityResult copied(Entry entry) {
    byte[] value = entry.value();
    if (value == null) return EntityResult.tombstone(entry.version());
    return EntityResult.found(value, entry.version()).expiringAt(entry.expiresAtMillis());
  }

  // A record as read() answers it: on the heap, a lent value copied (and its lease ended).
  private static EntityResult copiedOut(@Nullable ReadRecord record) {
    if (record == null) return EntityResult.NOT_FOUND;
    try (record) {
      return switch (record) {
        case ReadRecord.Copied(Entry entry) -> copied(entry);
        case ReadRecord.Lent lent ->
            EntityResult.found(lent.value().toArray(ValueLayout.JAVA_BYTE), lent.version()).expiringAt(lent.expiresAtMillis());
      };
    }
  }

  // The version of the value or the tombstone found, which both a client and a peer are told.
  private static EntityResult answered(@Nullable ReadRecord record) {
    return switch (record) {
      case null -> EntityResult.NOT_FOUND;
      case ReadRecord.Lent lent -> EntityResult.lent(lent, lent.version()).expiringAt(lent.expiresAtMillis());
      case ReadRecord.Copied(Entry entry) -> copied(entry);
    };
  }

  /** How far {@code version} is ahead of the engine's wall clock, in ms ({@link dev.shale.storage.HybridClock#aheadOfWallMillis}). */
  public long aheadOfClockMillis(long version) {
    return engine.clock().aheadOfWallMillis(version);
  }

  /**
   * Stores a record with a coordinator's {@code version}: {@code value}, or a tombstone when it is
   * null; the engine keeps the array as is. Answers {@link EntityResult.Outcome#STORED} or
   * {@link EntityResult.Outcome#DELETED}.
   */
  public EntityResult write(byte[] key, byte @Nullable [] value, long version) {
    return write(key, value, version, Entry.NEVER);
  }

  /** {@link #write(byte[], byte[], long)} of a value expiring at {@code expiresAtMillis} (stamped by its coordinator). */
  public EntityResult write(byte[] key, byte @Nullable [] value, long version, long expiresAtMillis) {
    return call(value == null ? "replica delete" : "replica put", key, () -> {
      if (expiresAtMillis == Entry.NEVER) engine.write(key, value, version); // the call engines knew first
      else engine.write(key, value, version, expiresAtMillis);
      return value == null ? EntityResult.DELETED : EntityResult.STORED;
    });
  }

  /**
   * {@link #write}, done at once if the engine can do it without waiting ({@link Engine#tryWrite});
   * null, with nothing written, if it cannot.
   */
  public @Nullable EntityResult tryWrite(byte[] key, byte @Nullable [] value, long version) {
    return tryWrite(key, value, version, Entry.NEVER);
  }

  /** {@link #tryWrite(byte[], byte[], long)} of a value expiring at {@code expiresAtMillis}. */
  public @Nullable EntityResult tryWrite(byte[] key, byte @Nullable [] value, long version, long expiresAtMillis) {
    return call(value == null ? "replica delete" : "replica put", key, () -> {
      boolean written = expiresAtMillis == Entry.NEVER
          ? engine.tryWrite(key, value, version) // the call engines knew first
          : engine.tryWrite(key, value, version, expiresAtMillis);
      if (!written) return null;
      return value == null ? EntityResult.DELETED : EntityResult.STORED;
    });
  }

  /**
   * A client's write for {@link #tryStoreAll}: a value, or a tombstone when {@code value} is null;
   * a value that expires {@code ttlMillis} after its write's version time (0: never).
   */
  public record Write(byte[] key, byte @Nullable [] value, long ttlMillis) {
    /** A write that does not expire. */
    public Write(byte[] key, byte @Nullable [] value) {
      this(key, value, 0);
    }

    /** Its own answer once its group is written: stored, or deleted for a tombstone. */
    public EntityResult written() {
      return value == null ? EntityResult.DELETED : EntityResult.STORED;
    }
  }

  /**
   * {@link #put} or {@link #delete} of every write in {@code writes}, in order, as one group,
   * if the engine can do it without waiting ({@link Engine#tryWriteAll}): answered
   * {@link EntityResult.Outcome#STORED} for the group once all are written; a failure, with none
   * written; or null, with none written, if the engine cannot.
   */
  public @Nullable EntityResult tryStoreAll(List<Write> writes) {
    return call("write group", null, () -> {
      // The engine clock's next versions, as put and delete take. Versions taken and not used
      // (the engine declined) are a gap in the clock: harmless.
      List<Entry> records = new ArrayList<>(writes.size());
      for (Write write : writes) {
        long version = engine.clock().next();
        records.add(new Entry(write.key(), version, write.value(), expiryOf(version, write.ttlMillis())));
      }
      return engine.tryWriteAll(records) ? EntityResult.STORED : null;
    });
  }

  // The expiry of a write at version that lives ttlMillis (0: forever): stamped from the same
  // clock reading as the version, as the cluster's coordinator does.
  private static long expiryOf(long version, long ttlMillis) {
    return ttlMillis == 0 ? Entry.NEVER : Versions.physicalMillis(version) + ttlMillis;
  }

  /** Stores {@code value}; the engine keeps the array as is, so no one may change it after. */
  public EntityResult put(byte[] key, byte[] value) {
    return put(key, value, 0);
  }

  /**
   * Stores {@code value}, expiring {@code ttlMillis} after the write's version time (0: never).
   * The expiry is stamped with a version of the engine's clock written with it (as the cluster's
   * coordinator does), so the value lives {@code ttlMillis} from its version.
   */
  public EntityResult put(byte[] key, byte[] value, long ttlMillis) {
    return call("put", key, () -> {
      if (ttlMillis == 0) {
        engine.put(key, value);
      } else {
        long version = engine.clock().next();
        engine.write(key, value, version, expiryOf(version, ttlMillis));
      }
      return EntityResult.STORED;
    });
  }

  public EntityResult delete(byte[] key) {
    return call("delete", key, () -> {
      engine.delete(key);
      return EntityResult.DELETED;
    });
  }

  /**
   * The records of {@code [start, end)} ({@code end} null: to the last key) in key order, with
   * tombstones when {@code includeTombstones}; the caller closes the iterator. Failures are
   * thrown (as {@link StorageException}), to be handled by whoever streams the records.
   */
  public EntryIterator scan(byte[] start, byte @Nullable [] end, boolean includeTombstones) {
    return engine.scan(start, end, includeTombstones);
  }

  /**
   * Compacts the whole store, blocking until done (minutes on a large store): for operators and
   * benchmarks that want a store without overridden records, such as the report's "GET after
   * compaction". Background compaction needs no call.
   */
  public EntityResult compact() {
    return call("compact", null, () -> {
      long startNanos = env.nanoTime();
      EngineStats before = engine.stats();
      engine.compact();
      EngineStats after = engine.stats();
      return EntityResult.done(String.format(java.util.Locale.ROOT,
          "compacted in %.1f s: %d tables of %d bytes before, %d tables of %d bytes after",
          (env.nanoTime() - startNanos) / 1e9, before.tables(), before.tableBytes(), after.tables(), after.tableBytes()));
    });
  }

  /** The engine's counters and sizes, for the status page. */
  /** The engine clock's wall time, epoch milliseconds: the time the node stamps on what it records. */
  public long wallMillis() {
    return engine.clock().wallMillis();
  }

  public EngineStats stats() {
    return engine.stats();
  }

  /** Whether the engine takes writes and which damaged files it serves around, for the status page. */
  public EngineHealth health() {
    return engine.health();
  }

  private static EntityResult call(String operation, byte @Nullable [] key, Supplier<EntityResult> work) {
    try {
      return work.get();
    } catch (WriteStallException e) {
      // Expected under overload and answered with 503: not worth a log line per request.
      return EntityResult.overloaded("storage is overloaded, retry later: " + e.getMessage());
    } catch (DiskFullException e) {
      // The engine logs the full disk once, and once more when writes resume.
      return EntityResult.diskFull("insufficient storage: " + Reasons.oneLine(e.getMessage()));
    } catch (CorruptionException e) {
      return logged(operation, key, "corrupt data: " + e.getMessage());
    } catch (StorageException e) {
      return logged(operation, key, "storage failure: " + e.getMessage());
    } catch (RuntimeException e) {
      // A bug, not a storage condition: name where it happened so one line is enough to start.
      return logged(operation, key, "internal error: " + e + atTopFrame(e));
    }
  }

  private static EntityResult logged(String operation, byte @Nullable [] key, String reason) {
    String line = Reasons.oneLine(reason);
    // The id is left out of the failure's name: the line shows the first id, the count the rest.
    LOG.log(operation + " failed: " + line,
        () -> operation + (key == null ? "" : " id=" + Keys.toDisplay(key)) + " failed: " + line);
    return EntityResult.failed(line);
  }

  private static String atTopFrame(Throwable e) {
    StackTraceElement[] frames = e.getStackTrace();
    return frames.length == 0 ? "" : " at " + frames[0];
  }
}
