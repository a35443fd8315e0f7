package dev.shale.storage.io;

import dev.shale.storage.Vfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * A sink that gathers bytes in a fixed direct buffer and hands them to the file when the
 * buffer fills or on {@link #drain}: bytes of many records leave in one write() call, and a
 * record larger than the buffer streams through it, so memory stays bounded by the buffer.
 * Not thread safe.
 */
final class ChannelSink implements ByteSink {
  private final Vfs.WritableFile file;
  private final ByteBuffer buffer;
  // Bytes accepted so far, drained or not.
  private long positionBytes;

  ChannelSink(Vfs.WritableFile file, ByteBuffer buffer) {
    this.file = file;
    this.buffer = buffer;
  }

  long positionBytes() {
    return positionBytes;
  }

  /** Starts over at {@code positionBytes}, the file having been cut back to it; drops the buffer. */
  void restartAt(long positionBytes) {
    buffer.clear();
    this.positionBytes = positionBytes;
  }

  /** Hands every buffered byte to the OS (looping over short writes). */
  void drain() throws IOException {
    buffer.flip();
    try {
      while (buffer.hasRemaining()) file.append(buffer);
    } finally {
      // After a failed write the bytes' fate is unknown; the caller poisons the file anyway.
      buffer.clear();
    }
  }

  @Override
  public void putByte(int value) {
    ensureRoom(Byte.BYTES);
    buffer.put((byte) value);
    positionBytes += Byte.BYTES;
  }

  @Override
  public void putInt(int value) {
    ensureRoom(Integer.BYTES);
    buffer.putInt(value);
    positionBytes += Integer.BYTES;
  }

  @Override
  public void putLong(long value) {
    ensureRoom(Long.BYTES);
    buffer.putLong(value);
    positionBytes += Long.BYTES;
  }

  @Override
  public void put(byte[] bytes) {
    int offset = 0;
    while (offset < bytes.length) {
      ensureRoom(1);
      int n = Math.min(buffer.remaining(), bytes.length - offset);
      buffer.put(bytes, offset, n);
      offset += n;
    }
    positionBytes += bytes.length;
  }

  private void ensureRoom(int bytes) {
    if (buffer.remaining() >= bytes) return;
    try {
      drain();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
