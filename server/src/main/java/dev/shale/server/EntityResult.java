package dev.shale.server;

import dev.shale.server.http.EntityHttpHandler;
import dev.shale.storage.Entry;
import dev.shale.storage.ReadRecord;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What became of one entity call, in the service's terms; {@link EntityHttpHandler} maps it to
 * an HTTP status.
 *
 * @param outcome what happened
 * @param value the stored bytes when {@code outcome} is {@link Outcome#FOUND}, the one-line
 *     report (UTF-8) when it is {@link Outcome#DONE}, else null
 * @param reason a one-line explanation when the call did not succeed, else null
 * @param version the version of the record read: of the value ({@link Outcome#FOUND}) or of the
 *     tombstone ({@link Outcome#NOT_FOUND}); else
 *     {@link #NO_VERSION}, also for a key the store has no record of
 * @param lent a {@link Outcome#FOUND} value the engine lent in place instead of {@code value}: the
 *     result holds its lease, which whoever takes the result hands to the answer or closes
 *     ({@link #closeLease})
 */
public record EntityResult(Outcome outcome, byte @Nullable [] value, @Nullable String reason, long version,
    ReadRecord.@Nullable Lent lent, long expiresAtMillis) {
  public static final long NO_VERSION = -1;

  /** A result of a record that does not expire (or of no record). */
  public EntityResult(
      Outcome outcome, byte @Nullable [] value, @Nullable String reason, long version, ReadRecord.@Nullable Lent lent) {
    this(outcome, value, reason, version, lent, Entry.NEVER);
  }

  /** This value found, expiring at {@code expiresAtMillis} ({@link Entry#NEVER}: it does not). */
  EntityResult expiringAt(long expiresAtMillis) {
    return new EntityResult(outcome, value, reason, version, lent, expiresAtMillis);
  }

  public enum Outcome {
    /** The value is stored (201). */
    STORED,
    /** The key has a value, in {@link #value} or {@link #lent} (200). */
    FOUND,
    /** The key has no value, or a tombstone (404). */
    NOT_FOUND,
    /** A tombstone is stored, whether or not the key had a value (202). */
    DELETED,
    /** The engine refused the write for now; nothing was written, retry later (503). */
    OVERLOADED,
    /** The disk is full: nothing was written; writes resume once space is freed (507). */
    DISK_FULL,
    /** The engine failed (500). */
    FAILED,
    /** An operator's request (such as a compaction) finished; {@link #value} says how (200). */
    DONE
  }

  static final EntityResult STORED = new EntityResult(Outcome.STORED, null, null, NO_VERSION, null);
  static final EntityResult NOT_FOUND = new EntityResult(Outcome.NOT_FOUND, null, null, NO_VERSION, null);
  static final EntityResult DELETED = new EntityResult(Outcome.DELETED, null, null, NO_VERSION, null);

  /** A value with its version. */
  static EntityResult found(byte[] value, long version) {
    return new EntityResult(Outcome.FOUND, value, null, version, null);
  }

  /** A value lent by the engine, with its version. */
  static EntityResult lent(ReadRecord.Lent lent, long version) {
    return new EntityResult(Outcome.FOUND, null, null, version, lent);
  }

  /** A tombstone with its version. */
  static EntityResult tombstone(long version) {
    return new EntityResult(Outcome.NOT_FOUND, null, null, version, null);
  }

  /** The value of a {@link Outcome#FOUND} result, the report of a {@link Outcome#DONE} one. */
  public byte[] requireValue() {
    return Objects.requireNonNull(value, () -> outcome + " has no value");
  }

  /** Ends the lease of a {@link #lent} value, if the result holds one (idempotent). */
  public void closeLease() {
    if (lent != null) lent.close();
  }

  /** Why a call was {@link Outcome#OVERLOADED}, {@link Outcome#DISK_FULL} or {@link Outcome#FAILED}. */
  public String requireReason() {
    return Objects.requireNonNull(reason, () -> outcome + " has no reason");
  }

  /** A tombstone (a replica read found one). */
  public boolean isTombstone() {
    return outcome == Outcome.NOT_FOUND && version != NO_VERSION;
  }

  static EntityResult done(String report) {
    return new EntityResult(Outcome.DONE, report.getBytes(java.nio.charset.StandardCharsets.UTF_8), null, NO_VERSION, null);
  }

  static EntityResult overloaded(String reason) {
    return new EntityResult(Outcome.OVERLOADED, null, reason, NO_VERSION, null);
  }

  static EntityResult diskFull(String reason) {
    return new EntityResult(Outcome.DISK_FULL, null, reason, NO_VERSION, null);
  }

  static EntityResult failed(String reason) {
    return new EntityResult(Outcome.FAILED, null, reason, NO_VERSION, null);
  }
}
