package dev.shale.storage.table;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * Bytes of an on-disk layout spelled field by field from docs/format.md, for tests that hold the
 * writer and readers to the spec rather than to each other: little-endian fields appended in order.
 */
final class Spec {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  Spec u8(int v) {
    out.write(v);
    return this;
  }

  /** An unsigned LEB128 varint: 7 bits a byte, low group first, high bit on all but the last. */
  Spec varint(long v) {
    while (Long.compareUnsigned(v, 0x80) >= 0) {
      out.write((int) (v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out.write((int) v);
    return this;
  }

  /** zigzag(d) as a varint: (d << 1) ^ (d >> 63). */
  Spec zigzag(long d) {
    return varint((d << 1) ^ (d >> 63));
  }

  Spec u32(long v) {
    return raw(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) v).array());
  }

  Spec u64(long v) {
    return raw(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
  }

  Spec raw(String ascii) {
    return raw(ascii.getBytes(StandardCharsets.US_ASCII));
  }

  Spec raw(byte[] b) {
    out.writeBytes(b);
    return this;
  }

  /** Each of {@code bytes} (0-255) appended as one byte. */
  Spec raw(int... bytes) {
    for (int b : bytes) out.write(b);
    return this;
  }

  /** Appends the crc32c of everything from {@code start}. */
  Spec crcFrom(int start) {
    CRC32C crc = new CRC32C();
    crc.update(out.toByteArray(), start, out.size() - start);
    return u32(crc.getValue());
  }

  int size() {
    return out.size();
  }

  byte[] toArray() {
    return out.toByteArray();
  }
}
