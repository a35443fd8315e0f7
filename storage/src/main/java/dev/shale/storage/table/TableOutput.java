package dev.shale.storage.table;

import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Appends little-endian fields to a file through one reusable direct buffer, keeping a running
 * crc32c of the bytes appended since the last {@link #startChecksum}.
 *
 * <p>A block's crc covers bytes that may already have left the buffer, so the crc is fed as bytes
 * leave it (and, for a large array written straight to the file, from the array itself): no
 * block is ever held whole in memory, however big its values. Not thread safe.
 */
final class TableOutput implements FieldSink {
  static final int BUFFER_BYTES = 256 * 1024;

  private final Vfs.WritableFile file;
  private final ByteBuffer buffer =
      ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private final CRC32C crc = new CRC32C();
  // Invariant: buffer bytes [0, crcFrom) are already in crc; [crcFrom, position) are not yet.
  private int crcFrom;
  private long flushedBytes;

  TableOutput(Vfs.WritableFile file) {
    this.file = file;
  }

  /** Bytes appended so far: the file offset of the next byte. */
  @Override
  public long position() {
    return flushedBytes + buffer.position();
  }

  @Override
  public void putByte(byte b) throws IOException {
    ensureRoom(1);
    buffer.put(b);
  }

  @Override
  public void putInt(int i) throws IOException {
    ensureRoom(4);
    buffer.putInt(i);
  }

  @Override
  public void putLong(long l) throws IOException {
    ensureRoom(8);
    buffer.putLong(l);
  }

  @Override
  public void putBytes(byte[] bytes, int offset, int length) throws IOException {
    if (length <= buffer.remaining()) {
      buffer.put(bytes, offset, length);
    } else if (length < BUFFER_BYTES) {
      flush();
      buffer.put(bytes, offset, length);
    } else {
      // Big values go straight to the file rather than through the buffer in pieces.
      flush();
      crc.update(bytes, offset, length);
      writeFully(ByteBuffer.wrap(bytes, offset, length));
      flushedBytes += length;
    }
  }

  /** Starts a new checksum at the current position. */
  void startChecksum() {
    crc.reset();
    crcFrom = buffer.position();
  }

  /** The crc32c of every byte appended since {@link #startChecksum}. */
  int checksum() {
    absorbIntoChecksum();
    return (int) crc.getValue();
  }

  /** Writes out the buffer and forces the file's content and metadata to the device. */
  void sync() throws IOException {
    flush();
    file.sync(true);
  }

  private void ensureRoom(int bytes) throws IOException {
    if (buffer.remaining() < bytes) flush();
  }

  private void flush() throws IOException {
    absorbIntoChecksum();
    buffer.flip();
    flushedBytes += buffer.remaining();
    writeFully(buffer);
    buffer.clear();
    crcFrom = 0;
  }

  private void absorbIntoChecksum() {
    int end = buffer.position();
    if (end > crcFrom) crc.update(buffer.slice(crcFrom, end - crcFrom));
    crcFrom = end;
  }

  private void writeFully(ByteBuffer bytes) throws IOException {
    while (bytes.hasRemaining()) file.append(bytes);
  }
}
