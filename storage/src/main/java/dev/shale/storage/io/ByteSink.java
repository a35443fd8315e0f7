package dev.shale.storage.io;

/** Where a {@link Payload} writes its bytes, little-endian (docs/format.md, "Conventions"). */
public interface ByteSink {
  void putByte(int value);

  void putInt(int value);

  void putLong(long value);

  void put(byte[] bytes);
}
