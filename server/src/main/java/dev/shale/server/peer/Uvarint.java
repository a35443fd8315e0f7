package dev.shale.server.peer;

import io.netty.buffer.ByteBuf;

/**
 * Unsigned LEB128 integers, as the internode protocol writes lengths and ids (docs/format.md,
 * "Internode protocol"): 7 bits a byte, the low group first, the high bit set on every byte but
 * the last.
 */
final class Uvarint {
  /** Most bytes of a frame's length or a bytes field's length: 5 carry 35 bits, an int fits. */
  static final int MAX_INT_BYTES = 5;
  /** Most bytes of an id: 10 carry 70 bits, a u64 fits (the 10th byte is 0 or 1). */
  static final int MAX_LONG_BYTES = 10;
  /** A read that needs bytes not yet received. */
  static final long NEED_MORE = -1;
  /** A read of bytes that are no uvarint of the allowed width. */
  static final long MALFORMED = -2;

  private Uvarint() {}

  /** Bytes {@code value} (treated as unsigned) takes, shortest form. */
  static int size(long value) {
    int bytes = 1;
    while ((value & ~0x7FL) != 0) {
      value >>>= 7;
      bytes++;
    }
    return bytes;
  }

  static void write(ByteBuf out, long value) {
    while ((value & ~0x7FL) != 0) {
      out.writeByte((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.writeByte((int) value);
  }

  /**
   * The int at {@code index} of {@code in}, not moving its reader index, with its size in
   * {@code size[0]}: {@link #NEED_MORE} when its last byte is not there yet, {@link #MALFORMED}
   * when it runs past {@link #MAX_INT_BYTES} or does not fit a non-negative int.
   */
  static long peekInt(ByteBuf in, int index, int[] size) {
    long value = 0;
    int end = in.writerIndex();
    for (int i = 0; i < MAX_INT_BYTES; i++) {
      if (index + i >= end) return NEED_MORE;
      int b = in.getUnsignedByte(index + i);
      value |= (long) (b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) {
        size[0] = i + 1;
        return value > Integer.MAX_VALUE ? MALFORMED : value;
      }
    }
    return MALFORMED;
  }

  /**
   * Reads an unsigned long of at most {@link #MAX_LONG_BYTES} from a whole frame's body.
   *
   * @throws BadFrameException if it runs past the body or the width, or overflows 64 bits
   */
  static long readLong(ByteBuf in) throws BadFrameException {
    long value = 0;
    for (int i = 0; i < MAX_LONG_BYTES; i++) {
      if (!in.isReadable()) throw new BadFrameException("a varint runs past the end of its frame");
      int b = in.readUnsignedByte();
      if (i == MAX_LONG_BYTES - 1 && b > 1) throw new BadFrameException("a varint overflows 64 bits");
      value |= (long) (b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) return value;
    }
    throw new BadFrameException("a varint is longer than " + MAX_LONG_BYTES + " bytes");
  }

  /** As {@link #readLong}, for a length: at most {@link #MAX_INT_BYTES}, fitting an int. */
  static int readInt(ByteBuf in) throws BadFrameException {
    long value = 0;
    for (int i = 0; i < MAX_INT_BYTES; i++) {
      if (!in.isReadable()) throw new BadFrameException("a length runs past the end of its frame");
      int b = in.readUnsignedByte();
      value |= (long) (b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) {
        if (value > Integer.MAX_VALUE) throw new BadFrameException("a length does not fit 31 bits");
        return (int) value;
      }
    }
    throw new BadFrameException("a length is longer than " + MAX_INT_BYTES + " bytes");
  }
}
