package dev.shale.storage.io;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/** A sink that only feeds crc32c: the writer's first pass over a payload. Not thread safe. */
final class CrcSink implements ByteSink {
  private final CRC32C crc = new CRC32C();
  private final ByteBuffer scratch = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);

  void reset() {
    crc.reset();
  }

  int value() {
    return (int) crc.getValue();
  }

  @Override
  public void putByte(int value) {
    crc.update(value);
  }

  @Override
  public void putInt(int value) {
    crc.update(scratch.clear().putInt(value).flip());
  }

  @Override
  public void putLong(long value) {
    crc.update(scratch.clear().putLong(value).flip());
  }

  @Override
  public void put(byte[] bytes) {
    crc.update(bytes);
  }
}
