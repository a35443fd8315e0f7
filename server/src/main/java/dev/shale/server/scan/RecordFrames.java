package dev.shale.server.scan;

import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The internal scan stream's frames (docs/format.md, "Internal scan stream"): how a node sends
 * the records of a range, tombstones and versions included, to the coordinator of a cluster
 * scan. Every frame is {@code crc:u32 length:u32 payload[length]}, little-endian, the crc being
 * CRC-32C over {@code length} and {@code payload}, as in the write-ahead log:
 *
 * <pre>
 *   stream  := header frame* end
 *   header  := magic:u64 format_version:u32                      -- "SHALESCN", 1
 *   frame   := crc:u32 length:u32 type:u8 version:u64 key_length:u32 value_length:u32 key value
 *   end     := crc:u32 length:u32 type:u8 (= 0) record_count:u64
 * </pre>
 */
public final class RecordFrames {
  /** "SHALESCN" read as a little-endian u64. Do not change: embedded in the stream format. */
  static final long MAGIC = 0x4E4353454C414853L;
  /** Do not change: embedded in the stream format. */
  static final int FORMAT_VERSION = 1;
  static final int HEADER_BYTES = 12;
  /** Frame types. Do not change: embedded in the stream format. */
  static final byte END = 0;
  static final byte VALUE = 1;
  static final byte TOMBSTONE = 2;
  /** A value with an expiry: its value bytes are expires_at:u64 then the value, as in the log. */
  static final byte EXPIRING_VALUE = 3;
  static final int EXPIRY_BYTES = 8;
  /** crc and length. */
  static final int PREFIX_BYTES = 8;
  static final int RECORD_FIXED_BYTES = 17;
  static final int END_BYTES = 9;
  /** The longest payload a valid record can have. */
  static final long MAX_PAYLOAD_BYTES = RECORD_FIXED_BYTES + (long) Keys.MAX_KEY_BYTES + EXPIRY_BYTES + Engine.MAX_VALUE_BYTES;

  private RecordFrames() {}

  static ByteBuf header() {
    ByteBuf out = Unpooled.buffer(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    out.writeLong(MAGIC).writeInt(FORMAT_VERSION);
    return out;
  }

  /** The frame of {@code entry}: its fixed fields in a small buffer, key and value wrapped, not copied. */
  static ByteBuf record(Entry entry) {
    byte[] key = entry.key();
    byte[] value = entry.value();
    int expiryBytes = entry.expires() ? EXPIRY_BYTES : 0;
    int valueLength = value == null ? 0 : expiryBytes + value.length;
    ByteBuf fixed = Unpooled.buffer(PREFIX_BYTES + RECORD_FIXED_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    fixed.writeInt(0); // crc, filled in below
    fixed.writeInt(RECORD_FIXED_BYTES + key.length + valueLength);
    fixed.writeByte(value == null ? TOMBSTONE : entry.expires() ? EXPIRING_VALUE : VALUE);
    fixed.writeLong(entry.version());
    fixed.writeInt(key.length);
    fixed.writeInt(valueLength);
    ByteBuf expiry = Unpooled.buffer(expiryBytes).order(ByteOrder.LITTLE_ENDIAN);
    if (entry.expires()) expiry.writeLong(entry.expiresAtMillis());
    CRC32C crc = new CRC32C();
    crc.update(fixed.array(), fixed.arrayOffset() + 4, PREFIX_BYTES - 4 + RECORD_FIXED_BYTES);
    crc.update(key);
    if (entry.expires()) crc.update(expiry.array(), expiry.arrayOffset(), EXPIRY_BYTES);
    if (value != null) crc.update(value);
    fixed.setInt(0, (int) crc.getValue());
    if (entry.expires()) fixed = Unpooled.wrappedBuffer(fixed, Unpooled.wrappedBuffer(key), expiry);
    else fixed = Unpooled.wrappedBuffer(fixed, Unpooled.wrappedBuffer(key));
    return value == null || value.length == 0 ? fixed : Unpooled.wrappedBuffer(fixed, Unpooled.wrappedBuffer(value));
  }

  static ByteBuf end(long recordCount) {
    ByteBuf out = Unpooled.buffer(PREFIX_BYTES + END_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    out.writeInt(0).writeInt(END_BYTES).writeByte(END).writeLong(recordCount);
    CRC32C crc = new CRC32C();
    crc.update(out.array(), out.arrayOffset() + 4, 4 + END_BYTES);
    out.setInt(0, (int) crc.getValue());
    return out;
  }

  /** Malformed stream: the message says what and where. */
  public static final class FormatException extends Exception {
    FormatException(String message) {
      super(message);
    }
  }

  /**
   * Decodes a stream fed in pieces. Holds the bytes of at most one incomplete frame plus the
   * piece being fed. Not thread safe.
   */
  public static final class Decoder {
    private final String source; // for messages
    // The pieces not decoded yet, without copying them together.
    private final CompositeByteBuf pending = Unpooled.compositeBuffer(Integer.MAX_VALUE);
    private boolean headerRead;
    private boolean ended;
    private long records;
    private long offset; // of pending's first byte in the stream

    public Decoder(String source) {
      this.source = source;
    }

    /** Adds {@code piece} (the decoder takes it over and releases it). */
    public void feed(ByteBuf piece) {
      pending.addComponent(true, piece);
    }

    /** The next record, or null if more bytes are needed or the stream has ended ({@link #ended}). */
    public @Nullable Entry next() throws FormatException {
      if (ended) {
        if (pending.isReadable()) throw new FormatException(source + " sent bytes after the end frame at offset " + offset);
        return null;
      }
      if (!headerRead && !readHeader()) return null;
      if (pending.readableBytes() < PREFIX_BYTES) return null;
      int start = pending.readerIndex();
      long length = Integer.toUnsignedLong(pending.getIntLE(start + 4));
      if (length < END_BYTES || length > MAX_PAYLOAD_BYTES) {
        throw new FormatException(source + " sent a frame of " + length + " bytes at offset " + offset);
      }
      if (pending.readableBytes() < PREFIX_BYTES + length) return null;
      checkCrc(start, (int) length);
      Entry entry = decode(start + PREFIX_BYTES, (int) length);
      pending.skipBytes(PREFIX_BYTES + (int) length);
      offset += PREFIX_BYTES + length;
      compact();
      // Bytes that came with the end frame are refused now: the stream ends as the end frame
      // is read, and nothing after that is read from the peer.
      if (ended && pending.isReadable()) throw new FormatException(source + " sent bytes after the end frame at offset " + offset);
      return entry;
    }

    public boolean ended() {
      return ended;
    }

    public void release() {
      if (pending.refCnt() > 0) pending.release();
    }

    private boolean readHeader() throws FormatException {
      if (pending.readableBytes() < HEADER_BYTES) return false;
      long magic = pending.readLongLE();
      int version = pending.readIntLE();
      compact();
      if (magic != MAGIC || version != FORMAT_VERSION) {
        throw new FormatException(source + " did not send a scan stream of format " + FORMAT_VERSION
            + " (magic " + Long.toHexString(magic) + ", version " + version + ")");
      }
      headerRead = true;
      offset = HEADER_BYTES;
      return true;
    }

    private void checkCrc(int start, int length) throws FormatException {
      CRC32C crc = new CRC32C();
      crc.update(pending.nioBuffer(start + 4, 4 + length));
      if ((int) crc.getValue() != pending.getIntLE(start)) {
        throw new FormatException(source + " sent a frame that fails its crc at offset " + offset);
      }
    }

    private @Nullable Entry decode(int at, int length) throws FormatException {
      byte type = pending.getByte(at);
      if (type == END) {
        long count = pending.getLongLE(at + 1);
        if (length != END_BYTES || count != records) {
          throw new FormatException(source + " ended its stream at offset " + offset + " claiming " + count
              + " records after sending " + records);
        }
        ended = true;
        return null;
      }
      if ((type != VALUE && type != TOMBSTONE && type != EXPIRING_VALUE) || length < RECORD_FIXED_BYTES) {
        throw new FormatException(source + " sent a frame of unknown type " + type + " at offset " + offset);
      }
      long version = pending.getLongLE(at + 1);
      long keyLength = Integer.toUnsignedLong(pending.getIntLE(at + 9));
      long valueLength = Integer.toUnsignedLong(pending.getIntLE(at + 13));
      if (RECORD_FIXED_BYTES + keyLength + valueLength != length || keyLength == 0
          || (type == TOMBSTONE && valueLength != 0) || (type == EXPIRING_VALUE && valueLength < EXPIRY_BYTES)) {
        throw new FormatException(source + " sent a record whose lengths disagree at offset " + offset);
      }
      byte[] key = new byte[(int) keyLength];
      pending.getBytes(at + RECORD_FIXED_BYTES, key);
      records++;
      if (type == TOMBSTONE) return Entry.tombstone(key, version);
      int valueAt = at + RECORD_FIXED_BYTES + key.length;
      long expiresAtMillis = Entry.NEVER;
      if (type == EXPIRING_VALUE) {
        expiresAtMillis = pending.getLongLE(valueAt);
        if (expiresAtMillis <= 0) throw new FormatException(source + " sent an expiry of " + expiresAtMillis + " at offset " + offset);
        valueAt += EXPIRY_BYTES;
        valueLength -= EXPIRY_BYTES;
      }
      byte[] value = new byte[(int) valueLength];
      pending.getBytes(valueAt, value);
      return new Entry(key, version, value, expiresAtMillis);
    }

    private void compact() {
      pending.discardReadComponents();
    }
  }
}
