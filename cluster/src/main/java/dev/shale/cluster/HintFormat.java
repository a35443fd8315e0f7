package dev.shale.cluster;

import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.StorageException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The bytes of a hint in the hint store's engine: docs/format.md, "Hints". Stateless.
 */
final class HintFormat {
  // Do not change: embedded in on-disk data (docs/format.md, "Hints").
  static final byte KIND_VALUE = 0;
  // Do not change: embedded in on-disk data (docs/format.md, "Hints").
  static final byte KIND_TOMBSTONE = 1;
  // Do not change: embedded in on-disk data (docs/format.md, "Hints"). expires_at:u64, then the value.
  static final byte KIND_EXPIRING_VALUE = 2;
  static final int EXPIRY_BYTES = 8;
  static final int MAX_ID_BYTES = 255;
  /** The longest original key a hint can carry: the engine's limit less the target prefix. */
  static final int MAX_ORIGINAL_KEY_BYTES = Keys.MAX_KEY_BYTES - 1 - MAX_ID_BYTES;
  /** What a hint counts against {@link HintLimits#maxBytes} besides its key and value: its version. */
  static final int VERSION_BYTES = 8;

  private HintFormat() {}

  /** {@code id_length id}: the first bytes of every hint key of {@code target}. */
  static byte[] prefix(NodeAddress target) {
    byte[] id = target.id().getBytes(StandardCharsets.UTF_8);
    if (id.length > MAX_ID_BYTES) {
      throw new IllegalArgumentException("node id " + target.id() + " is longer than " + MAX_ID_BYTES + " bytes");
    }
    byte[] prefix = new byte[1 + id.length];
    prefix[0] = (byte) id.length;
    System.arraycopy(id, 0, prefix, 1, id.length);
    return prefix;
  }

  /** {@code hint_key := id_length:u8 id original_key}. */
  static byte[] key(byte[] prefix, byte[] originalKey) {
    if (originalKey.length > MAX_ORIGINAL_KEY_BYTES) {
      throw new IllegalArgumentException("a hint's key is at most " + MAX_ORIGINAL_KEY_BYTES + " bytes: "
          + originalKey.length);
    }
    byte[] key = Arrays.copyOf(prefix, prefix.length + originalKey.length);
    System.arraycopy(originalKey, 0, key, prefix.length, originalKey.length);
    return key;
  }

  /** {@code hint_value := kind:u8 original_value}; a null value is a tombstone (kind 1). */
  static byte[] value(byte @Nullable [] originalValue) {
    return value(originalValue, Entry.NEVER);
  }

  /**
   * {@code hint_value}: kind 0 or 1 as {@link #value(byte[])}, or for a value expiring at
   * {@code expiresAtMillis} (not {@link Entry#NEVER}) {@code kind:u8 = 2, expires_at:u64, original_value}.
   */
  static byte[] value(byte @Nullable [] originalValue, long expiresAtMillis) {
    if (originalValue == null) return new byte[] {KIND_TOMBSTONE};
    int header = expiresAtMillis == Entry.NEVER ? 1 : 1 + EXPIRY_BYTES;
    if (originalValue.length > Engine.MAX_VALUE_BYTES - header) {
      throw new IllegalArgumentException("a hint's value is at most " + (Engine.MAX_VALUE_BYTES - header) + " bytes: "
          + originalValue.length);
    }
    byte[] value = new byte[header + originalValue.length];
    if (expiresAtMillis == Entry.NEVER) {
      value[0] = KIND_VALUE;
    } else {
      value[0] = KIND_EXPIRING_VALUE;
      ByteBuffer.wrap(value, 1, EXPIRY_BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(expiresAtMillis);
    }
    System.arraycopy(originalValue, 0, value, header, originalValue.length);
    return value;
  }

  /** The smallest key above every hint key starting with {@code prefix}: the end of a target's range. */
  static byte @Nullable [] rangeEnd(byte[] prefix) {
    // Bumping the last byte that is not 0xff gives the exclusive end; UTF-8 never holds 0xff, so
    // that is the id's last byte (a port digit) and the loop runs once.
    byte[] end = prefix.clone();
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xff) {
        end[i]++;
        return Arrays.copyOf(end, i + 1);
      }
    }
    return null;
  }

  /** The smallest key above {@code key}: {@code key} followed by a zero byte. */
  static byte[] successor(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }

  /** What a stored hint counts against {@link HintLimits#maxBytes}. */
  static long sizeBytes(byte[] hintKey, byte @Nullable [] hintValue) {
    // null: a removed hint (a tombstone in the engine)
    return (long) hintKey.length + (hintValue == null ? 0 : hintValue.length) + VERSION_BYTES;
  }

  /** The hint an engine record holds. */
  static Hint decode(Entry record) {
    return decode(targetOf(record.key()), record);
  }

  /** The hint an engine record of {@code target}'s range holds. */
  static Hint decode(NodeAddress target, Entry record) {
    byte[] key = record.key();
    int prefixLength = 1 + (key[0] & 0xff);
    byte[] value = record.value();
    if (key.length <= prefixLength || value == null || value.length == 0
        || (value[0] != KIND_VALUE && value[0] != KIND_TOMBSTONE && value[0] != KIND_EXPIRING_VALUE)
        || (value[0] == KIND_TOMBSTONE && value.length != 1)
        || (value[0] == KIND_EXPIRING_VALUE && value.length < 1 + EXPIRY_BYTES)) {
      throw malformed(record);
    }
    byte[] originalKey = Arrays.copyOfRange(key, prefixLength, key.length);
    if (value[0] == KIND_TOMBSTONE) return new Hint(target, originalKey, null, record.version());
    if (value[0] == KIND_VALUE) return new Hint(target, originalKey, Arrays.copyOfRange(value, 1, value.length), record.version());
    long expiresAtMillis = ByteBuffer.wrap(value, 1, EXPIRY_BYTES).order(ByteOrder.LITTLE_ENDIAN).getLong();
    if (expiresAtMillis <= 0) throw malformed(record);
    return new Hint(target, originalKey, Arrays.copyOfRange(value, 1 + EXPIRY_BYTES, value.length), record.version(),
        expiresAtMillis);
  }

  /** The target named by a hint key's prefix. */
  static NodeAddress targetOf(byte[] hintKey) {
    int idLength = hintKey[0] & 0xff;
    if (idLength == 0 || hintKey.length <= 1 + idLength) {
      throw new StorageException("hint store: key " + Keys.toDisplay(hintKey) + " has no target prefix (docs/format.md, \"Hints\")");
    }
    String id = new String(hintKey, 1, idLength, StandardCharsets.UTF_8);
    try {
      return NodeAddress.ofId(id);
    } catch (IllegalArgumentException e) {
      throw new StorageException("hint store: key " + Keys.toDisplay(hintKey) + " names no node: " + e.getMessage());
    }
  }

  private static StorageException malformed(Entry record) {
    return new StorageException("hint store: record " + record + " is not a hint (docs/format.md, \"Hints\")");
  }
}
