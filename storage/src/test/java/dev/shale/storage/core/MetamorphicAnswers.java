package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * How {@link MetamorphicTest} writes down an answer, so that the answers of two option sets can
 * be compared as strings and a mismatch read by a person: a record as its key, version, value
 * length and CRC-32C, and expiry; a whole store as its record count and one CRC of them all.
 */
final class MetamorphicAnswers {
  private static final int KEY_DISPLAY_CHARS = 40;

  private MetamorphicAnswers() {}

  static String record(@Nullable Entry entry) {
    if (entry == null) return "absent";
    StringBuilder out = new StringBuilder(key(entry.key())).append(" v").append(entry.version());
    if (entry.isTombstone()) return out.append(" tombstone").toString();
    out.append(' ').append(entry.value().length).append("B crc ").append(Long.toHexString(crc(entry.value())));
    if (entry.expires()) out.append(" expires ").append(entry.expiresAtMillis());
    return out.toString();
  }

  static String records(List<Entry> entries) {
    StringBuilder out = new StringBuilder().append(entries.size()).append(" records [");
    for (int i = 0; i < entries.size(); i++) out.append(i == 0 ? "" : ", ").append(record(entries.get(i)));
    return out.append(']').toString();
  }

  /** A whole store's content, short: its record count and the CRC of every record's description. */
  static String digest(List<Entry> entries) {
    CRC32C crc = new CRC32C();
    for (Entry e : entries) crc.update(record(e).getBytes(StandardCharsets.UTF_8));
    return entries.size() + " records, crc " + Long.toHexString(crc.getValue());
  }

  private static String key(byte[] key) {
    String display = Keys.toDisplay(key);
    if (display.length() <= KEY_DISPLAY_CHARS) return display;
    return display.substring(0, KEY_DISPLAY_CHARS) + "...(" + key.length + "B crc " + Long.toHexString(crc(key)) + ")";
  }

  private static long crc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return crc.getValue();
  }
}
