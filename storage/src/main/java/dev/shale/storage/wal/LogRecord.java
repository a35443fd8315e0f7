package dev.shale.storage.wal;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.io.ByteSink;
import dev.shale.storage.io.Payload;
import dev.shale.storage.io.RecordReader.Frame;
import dev.shale.storage.io.SegmentBytes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * One log record's payload (docs/format.md, "Write-ahead log"):
 * {@code type:u8 version:u64 key_length:u32 value_length:u32 key value}.
 */
final class LogRecord implements Payload {
  private static final ValueLayout.OfInt U32 =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong U64 =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final Entry entry;

  LogRecord(Entry entry) {
    this.entry = entry;
  }

  /** The payload length of {@code entry}'s record: 17 + key_length + value_length. */
  static long lengthBytes(Entry entry) {
    return (long) LogFormat.PAYLOAD_HEADER_BYTES + entry.key().length + valueLength(entry);
  }

  @Override
  public int lengthBytes() {
    return Math.toIntExact(lengthBytes(entry));
  }

  @Override
  public void writeTo(ByteSink sink) {
    sink.putByte(type(entry));
    sink.putLong(entry.version());
    sink.putInt(entry.key().length);
    sink.putInt(valueLength(entry));
    sink.put(entry.key());
    if (entry.expires()) sink.putLong(entry.expiresAtMillis());
    byte[] value = entry.value(); // null: a tombstone
    if (value != null) sink.put(value);
  }

  /**
   * The largest payload a writer produces: a type, version and lengths, the largest key, an
   * expiry and the largest value.
   */
  static final long MAX_PAYLOAD_BYTES = (long) LogFormat.PAYLOAD_HEADER_BYTES + Keys.MAX_KEY_BYTES
      + LogFormat.EXPIRY_BYTES + Engine.MAX_VALUE_BYTES;

  /**
   * Whether a payload of {@code length} bytes at {@code payloadOffset} of {@code file} has the
   * shape of a record (a {@link dev.shale.storage.io.RecordShape}): {@code length} = 17 +
   * key_length + value_length (docs/format.md, "Write-ahead log"), and no more than a writer
   * produces; the lengths are judged only when they lie in the file.
   */
  static boolean plausible(MemorySegment file, long payloadOffset, long length) {
    if (length < LogFormat.PAYLOAD_HEADER_BYTES || length > MAX_PAYLOAD_BYTES) return false;
    if (file.byteSize() - payloadOffset < LogFormat.PAYLOAD_HEADER_BYTES) return true;
    return lengthByFields(file, payloadOffset) == length;
  }

  // 17 + key_length + value_length: the payload length the fields of the payload at offset claim.
  private static long lengthByFields(MemorySegment bytes, long payloadOffset) {
    long keyLength = Integer.toUnsignedLong(bytes.get(U32, payloadOffset + 9));
    long valueLength = Integer.toUnsignedLong(bytes.get(U32, payloadOffset + 13));
    return LogFormat.PAYLOAD_HEADER_BYTES + keyLength + valueLength;
  }

  /** Why {@code frame}'s payload lengths disagree (a torn tail, by the format), or null. */
  static @Nullable String inconsistency(Frame frame) {
    MemorySegment p = frame.payload();
    long length = p.byteSize();
    if (length < LogFormat.PAYLOAD_HEADER_BYTES) return "record length " + length + " < 17";
    if (lengthByFields(p, 0) != length) {
      return "record length " + length + " disagrees with key_length " + Integer.toUnsignedLong(p.get(U32, 9))
          + " and value_length " + Integer.toUnsignedLong(p.get(U32, 13));
    }
    return null;
  }

  /**
   * The entry in a consistent {@code frame} (see {@link #inconsistency}), its bytes copied out of
   * the mapping.
   *
   * @throws CorruptionException for a type other than value, tombstone or expiring value, a
   *     tombstone with value bytes or an expiring value too short for its expiry: the crc held,
   *     so these are not torn writes but data Shale did not write
   */
  static Entry decode(Path file, Frame frame) {
    MemorySegment p = frame.payload();
    byte type = p.get(ValueLayout.JAVA_BYTE, 0);
    long version = p.get(U64, 1);
    int keyLength = p.get(U32, 9);
    int valueLength = p.get(U32, 13);
    if (keyLength < 0 || valueLength < 0) {
      throw new CorruptionException(file,
          "key or value longer than 2^31-1 bytes in the record at offset " + frame.offset());
    }
    byte[] key = copy(p, LogFormat.PAYLOAD_HEADER_BYTES, keyLength);
    return switch (type) {
      case LogFormat.TYPE_VALUE ->
          new Entry(key, version, copy(p, LogFormat.PAYLOAD_HEADER_BYTES + keyLength, valueLength));
      case LogFormat.TYPE_TOMBSTONE -> {
        if (valueLength != 0) {
          throw new CorruptionException(file, "tombstone with " + valueLength
              + " value bytes in the record at offset " + frame.offset());
        }
        yield Entry.tombstone(key, version);
      }
      case LogFormat.TYPE_EXPIRING_VALUE -> {
        long expiresAtMillis = valueLength < LogFormat.EXPIRY_BYTES
            ? -1 : p.get(U64, LogFormat.PAYLOAD_HEADER_BYTES + keyLength);
        if (expiresAtMillis <= 0) {
          throw new CorruptionException(file, "expiring value without a valid expiry in the record at offset "
              + frame.offset());
        }
        long valueOffset = LogFormat.PAYLOAD_HEADER_BYTES + keyLength + LogFormat.EXPIRY_BYTES;
        yield new Entry(key, version, copy(p, valueOffset, valueLength - LogFormat.EXPIRY_BYTES), expiresAtMillis);
      }
      default -> throw new CorruptionException(file,
          "unknown record type " + type + " in the record at offset " + frame.offset());
    };
  }

  private static byte[] copy(MemorySegment payload, long offset, int length) {
    return SegmentBytes.copyOf(payload, offset, length);
  }

  private static byte type(Entry entry) {
    if (entry.isTombstone()) return LogFormat.TYPE_TOMBSTONE;
    return entry.expires() ? LogFormat.TYPE_EXPIRING_VALUE : LogFormat.TYPE_VALUE;
  }

  // value_length: an expiring value's counts its expires_at too.
  private static int valueLength(Entry entry) {
    byte[] value = entry.value(); // null: a tombstone
    if (value == null) return 0;
    return entry.expires() ? LogFormat.EXPIRY_BYTES + value.length : value.length;
  }
}
