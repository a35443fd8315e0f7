package dev.shale.storage.table;

import java.io.IOException;

/**
 * Where a block's little-endian fields go as a table is written: straight to the file ({@link
 * TableOutput}) or into memory first ({@link BlockBuffer}), so the block builder writes each
 * field once whichever it is.
 */
interface FieldSink {
  /** Bytes appended so far. */
  long position();

  void putByte(byte b) throws IOException;

  void putInt(int i) throws IOException;

  /** Appends the low 32 bits of {@code u32}, which must fit a u32 field. */
  default void putU32(long u32) throws IOException {
    if (u32 < 0 || u32 > TableFormat.U32_MAX) {
      throw new IllegalStateException(u32 + " does not fit a u32 field");
    }
    putInt((int) u32);
  }

  void putLong(long l) throws IOException;

  /** Appends {@code value}, taken as unsigned, as an LEB128 varint (docs/format.md, "Conventions"). */
  default void putVarint(long value) throws IOException {
    while ((value & ~0x7FL) != 0) {
      putByte((byte) (value | 0x80));
      value >>>= 7;
    }
    putByte((byte) value);
  }

  void putBytes(byte[] bytes, int offset, int length) throws IOException;

  default void putBytes(byte[] bytes) throws IOException {
    putBytes(bytes, 0, bytes.length);
  }
}
