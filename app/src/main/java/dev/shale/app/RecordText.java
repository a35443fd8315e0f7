package dev.shale.app;

import dev.shale.storage.Entry;
import dev.shale.storage.Versions;
import java.time.Instant;

/** A record's version, kind and expiry as the offline tools print them. */
final class RecordText {
  private RecordText() {}

  /** {@code <version> (<its wall-clock time>, logical <n>)}: a version is a hybrid-logical-clock timestamp. */
  static String version(long version) {
    return version + " (" + Instant.ofEpochMilli(Versions.physicalMillis(version)) + ", logical "
        + Versions.logical(version) + ")";
  }

  /** {@code value}, {@code tombstone} or {@code expiring value} (docs/format.md, record types 1, 2, 3). */
  static String kind(Entry record) {
    if (record.isTombstone()) return "tombstone";
    return record.expires() ? "expiring value" : "value";
  }

  /** When an expiring value expires; empty for other records. */
  static String expiry(Entry record) {
    return record.expires() ? " expires " + Instant.ofEpochMilli(record.expiresAtMillis()) : "";
  }
}
