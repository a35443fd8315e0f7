package dev.shale.sim;

import dev.shale.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.TreeMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * What the clients asked for and were told, the checker's model of a run: every write with its
 * version (once a coordinator sent it) and whether it was acknowledged, and every record any
 * coordinator sent to a replica, by key and version, so that a record a replica holds can be told
 * apart from one nobody wrote.
 */
final class History {
  /** The text a tombstone stands as among the sent records. */
  private static final String TOMBSTONE = "<tombstone>";

  /** One client write: a value, or a delete when {@code value} is null. */
  static final class Write {
    final int id;
    final String key;
    final @Nullable String value;
    final long issuedAtMillis;
    final String coordinator;
    final int ack; // of the replicas, how many had to store it
    long version = -1; // until its coordinator sent it
    boolean acknowledged;
    long decidedAtMillis = -1;

    Write(int id, String key, @Nullable String value, long issuedAtMillis, String coordinator, int ack) {
      this.id = id;
      this.ack = ack;
      this.key = key;
      this.value = value;
      this.issuedAtMillis = issuedAtMillis;
      this.coordinator = coordinator;
    }

    @Override
    public String toString() {
      return "write #" + id + " of " + key + " (" + (value == null ? "delete" : value) + ", v" + version + ", ack " + ack + ") through "
          + coordinator + " at " + issuedAtMillis + " ms" + (acknowledged ? ", acknowledged at " + decidedAtMillis + " ms" : "");
    }
  }

  private final List<Write> writes = new ArrayList<>();
  // key -> version -> the replicas that stored that record, or for which a hint of it was kept
  private final Map<String, Map<Long, Set<String>>> owed = new TreeMap<>();
  private long lastSentVersion = -1;
  private final Map<String, Map<Long, Set<String>>> sent = new TreeMap<>(); // key -> version -> value texts (two: a clash)

  Write issue(String key, @Nullable String value, long atMillis, String coordinator, int ack) {
    Write write = new Write(writes.size(), key, value, atMillis, coordinator, ack);
    writes.add(write);
    return write;
  }

  /** A coordinator sent this record to a replica (a client's write, a hint, a read repair). */
  void sent(byte[] key, long version, byte @Nullable [] value) {
    lastSentVersion = version;
    String text = value == null ? TOMBSTONE : new String(value, StandardCharsets.UTF_8);
    sent.computeIfAbsent(new String(key, StandardCharsets.UTF_8), k -> new TreeMap<>())
        .computeIfAbsent(version, v -> new TreeSet<>()).add(text);
  }

  /** The versions of which two different records were sent, by key: replicas cannot agree on those. */
  List<String> clashes() {
    List<String> found = new ArrayList<>();
    sent.forEach((key, versions) -> versions.forEach((version, texts) -> {
      if (texts.size() > 1) found.add(key + " v" + version + ": " + texts);
    }));
    return found;
  }

  /**
   * The version of the record sent last, and forgets it (-1: none since): a write's, read right
   * after the call of its coordinator, which sends to the replicas within the call.
   */
  long takeLastSentVersion() {
    long version = lastSentVersion;
    lastSentVersion = -1;
    return version;
  }

  /**
   * {@code replica} stored this record of {@code key}, or a hint of it for {@code replica} was
   * kept: from the moment the hints drained, it must hold it, or a newer record.
   */
  void owed(byte[] key, long version, String replica) {
    owed.computeIfAbsent(new String(key, StandardCharsets.UTF_8), k -> new TreeMap<>())
        .computeIfAbsent(version, v -> new TreeSet<>()).add(replica);
  }

  /** Every key's records by version, each with the replicas that owe it ({@link #owed}). */
  Map<String, Map<Long, Set<String>>> owed() {
    return owed;
  }

  List<Write> writes() {
    return writes;
  }

  /**
   * The newest write of {@code key} acknowledged by at least {@code minAck} replicas and decided
   * before {@code beforeMillis}, or null.
   */
  @Nullable Write newestAcknowledged(String key, long beforeMillis, int minAck) {
    Write newest = null;
    for (Write w : writes) {
      if (!w.key.equals(key) || !w.acknowledged || w.ack < minAck || w.decidedAtMillis >= beforeMillis) continue;
      if (newest == null || w.version > newest.version) newest = w;
    }
    return newest;
  }

  /** Why {@code entry}, held or read for {@code key}, is not a record any coordinator sent; null if it is one. */
  @Nullable String unknownRecord(String key, Entry entry) {
    String text = entry.value() == null ? TOMBSTONE : new String(Objects.requireNonNull(entry.value()), StandardCharsets.UTF_8);
    Set<String> sentText = sent.getOrDefault(key, Map.of()).getOrDefault(entry.version(), Set.of());
    if (sentText.contains(text)) return null;
    return key + " v" + entry.version() + " holds " + text + ", but what was sent with that version is " + sentText;
  }

  static String describe(@Nullable Entry entry) {
    if (entry == null) return "nothing";
    byte[] value = entry.value();
    return "v" + entry.version() + " " + (value == null ? TOMBSTONE : new String(value, StandardCharsets.UTF_8));
  }
}
