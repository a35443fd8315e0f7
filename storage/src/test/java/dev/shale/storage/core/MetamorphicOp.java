package dev.shale.storage.core;

import dev.shale.storage.Keys;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One operation of {@link MetamorphicTest}: what to do, with every random choice already made
 * (keys, values, ranges, how far to read), so that each option set runs exactly the same thing.
 * Choices that depend on the store's state (a version older or newer than the stored one) are
 * made from the model when the operation runs, which is the same for every option set.
 */
sealed interface MetamorphicOp {
  /** {@code Engine.put}, with an expiry {@code ttlMillis} after the wall clock (0: none). */
  record Put(byte[] key, byte[] value, long ttlMillis) implements MetamorphicOp {
    @Override
    public String toString() {
      return "put " + Keys.toDisplay(key) + " (" + value.length + " bytes" + (ttlMillis == 0 ? ")" : ", ttl " + ttlMillis + " ms)");
    }
  }

  record Delete(byte[] key) implements MetamorphicOp {
    @Override
    public String toString() {
      return "delete " + Keys.toDisplay(key);
    }
  }

  /**
   * {@code Engine.write} of a value (a tombstone when {@code value} is null) with the caller's
   * version, chosen by {@code version} from the stored record and the clock.
   */
  record Write(byte[] key, byte @Nullable [] value, VersionChoice version, long ttlMillis) implements MetamorphicOp {
    @Override
    public String toString() {
      return "write " + Keys.toDisplay(key) + " (" + (value == null ? "tombstone" : value.length + " bytes")
          + ", version " + version + (ttlMillis == 0 ? ")" : ", ttl " + ttlMillis + " ms)");
    }
  }

  /** {@code Engine.tryWriteAll} of the records; if it declines, each written with {@code write}. */
  record WriteBatch(List<Write> writes) implements MetamorphicOp {
    @Override
    public String toString() {
      return "tryWriteAll [" + writes.stream().map(Write::toString).collect(Collectors.joining("; ")) + "]";
    }
  }

  record Get(byte[] key) implements MetamorphicOp {
    @Override
    public String toString() {
      return "get " + Keys.toDisplay(key);
    }
  }

  /**
   * {@code Engine.read}; the record is closed at once, or held ({@code hold}) until a later
   * {@link ReleaseLeases}, a crash, or the end, across writes, flushes, compactions and reopens.
   */
  record Read(byte[] key, boolean hold) implements MetamorphicOp {
    @Override
    public String toString() {
      return "read " + Keys.toDisplay(key) + (hold ? ", lease held" : "");
    }
  }

  /** Closes every held read record, checking that each still holds the bytes it was read with. */
  record ReleaseLeases() implements MetamorphicOp {
    @Override
    public String toString() {
      return "release the held leases";
    }
  }

  /** {@code Engine.scan} of {@code [start, end)}, of which at most {@code limit} records are read before it is closed. */
  record Scan(byte[] start, byte @Nullable [] end, boolean includeTombstones, int limit) implements MetamorphicOp {
    @Override
    public String toString() {
      return "scan [" + Keys.toDisplay(start) + ", " + (end == null ? "end" : Keys.toDisplay(end)) + ") "
          + (includeTombstones ? "with" : "without") + " tombstones, first " + limit;
    }
  }

  record Compact() implements MetamorphicOp {
    @Override
    public String toString() {
      return "compact";
    }
  }

  /** {@code Engine.checkpoint}, then the checkpoint opened (a copy of it) and read whole. */
  record Checkpoint() implements MetamorphicOp {
    @Override
    public String toString() {
      return "checkpoint";
    }
  }

  record Reopen() implements MetamorphicOp {
    @Override
    public String toString() {
      return "close and reopen";
    }
  }

  /** A power loss (CrashVfs: everything not synced is lost), then the survivors reopened. */
  record Crash() implements MetamorphicOp {
    @Override
    public String toString() {
      return "crash (power loss) and reopen";
    }
  }

  /** Moves the wall clock forward: versions, and the expiry of values with a TTL, follow it. */
  record AdvanceClock(long millis) implements MetamorphicOp {
    @Override
    public String toString() {
      return "advance the clock " + millis + " ms";
    }
  }

  /**
   * How a {@link Write} picks its version: older than the stored record (by {@code delta}), a
   * tie with it, newer (by {@code delta}), or {@code fraction} of the clock's current version.
   * With no stored record, relative choices count from the clock's current version.
   */
  record VersionChoice(Kind kind, long delta, double fraction) {
    enum Kind { OLDER, TIE, NEWER, FRACTION_OF_CLOCK }

    long pick(@Nullable Long stored, long clock) {
      long base = stored == null ? clock : stored;
      return switch (kind) {
        case OLDER -> Math.max(0, base - delta);
        case TIE -> base;
        case NEWER -> base + delta;
        case FRACTION_OF_CLOCK -> (long) (fraction * clock);
      };
    }

    @Override
    public String toString() {
      return switch (kind) {
        case OLDER -> "stored - " + delta;
        case TIE -> "stored";
        case NEWER -> "stored + " + delta;
        case FRACTION_OF_CLOCK -> fraction + " x clock";
      };
    }
  }
}
