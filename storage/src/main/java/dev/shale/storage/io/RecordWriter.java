package dev.shale.storage.io;

import dev.shale.storage.Vfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

/**
 * Appends framed records to a new log or manifest file (docs/format.md, "Write-ahead log":
 * {@code header record*}, {@code record := crc:u32 length:u32 payload}).
 *
 * <p>Thread safety: one thread at a time may {@link #append}; {@link #force} and
 * {@link #sizeBytes} may run concurrently with it. A failed append or force leaves the file's
 * tail unknown: the caller must stop appending to it, unless it takes the append back with
 * {@link #truncateTo}.
 */
public final class RecordWriter implements AutoCloseable {
  /**
   * The write buffer. A group of records up to this size leaves in one write() call; a larger
   * record streams through the buffer, so a writer never holds more than this off-heap.
   */
  public static final int BUFFER_BYTES = 1 << 20;

  private final Path path;
  private final Vfs.WritableFile file;
  private final Arena arena;
  private final ChannelSink sink;
  private final CrcSink crc = new CrcSink();
  // Bytes handed to the OS: the header and every complete append.
  private volatile long sizeBytes;

  private RecordWriter(Path path, Vfs.WritableFile file) {
    this.path = path;
    this.file = file;
    this.arena = Arena.ofShared();
    ByteBuffer buffer = arena.allocate(BUFFER_BYTES).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    this.sink = new ChannelSink(file, buffer);
  }

  /**
   * Creates {@code path} (which must not exist) and writes its header, naming {@code magic} and
   * {@code formatVersion}; nothing is forced.
   */
  public static RecordWriter create(Vfs vfs, Path path, long magic, int formatVersion) throws IOException {
    Vfs.WritableFile file = vfs.create(path);
    RecordWriter writer = null;
    try {
      writer = new RecordWriter(path, file);
      writer.writeHeader(magic, formatVersion);
      return writer;
    } catch (IOException | RuntimeException e) {
      if (writer != null) writer.closeQuietly();
      else file.close();
      throw e;
    }
  }

  public Path path() {
    return path;
  }

  /** Bytes handed to the OS so far (header included). */
  public long sizeBytes() {
    return sizeBytes;
  }

  public void append(Payload payload) throws IOException {
    append(List.of(payload));
  }

  /**
   * Frames and writes {@code payloads} in order. Groups that fit {@link #BUFFER_BYTES} leave in
   * one write() call; each record stays self-contained (its own crc), so a torn group loses only
   * whole records from its end.
   */
  public void append(List<? extends Payload> payloads) throws IOException {
    try {
      for (int i = 0; i < payloads.size(); i++) appendFrame(payloads.get(i)); // no iterator per group
      sink.drain();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    sizeBytes = sink.positionBytes();
  }

  /**
   * Takes back an append that failed part way: cuts the file back to {@code sizeBytes} (what
   * {@link #sizeBytes} said before it), so it stays a clean prefix of whole records and appends
   * may go on. Only for a failure known to have left nothing else behind (a full disk), and
   * never below what was forced.
   */
  public void truncateTo(long sizeBytes) throws IOException {
    file.truncate(sizeBytes);
    sink.restartAt(sizeBytes);
    this.sizeBytes = sizeBytes;
  }

  /** Forces the file's bytes (and the size needed to read them) to the device: fdatasync. */
  public void force() throws IOException {
    file.sync(false);
  }

  @Override
  public void close() throws IOException {
    try {
      file.close();
    } finally {
      arena.close();
    }
  }

  private void closeQuietly() {
    try {
      close();
    } catch (IOException | RuntimeException ignored) {
      // The caller reports the failure that made it give up the file.
    }
  }

  // docs/format.md, "Write-ahead log": header := magic:u64 format_version:u32 reserved:u32
  private void writeHeader(long magic, int formatVersion) throws IOException {
    sink.putLong(magic);
    sink.putInt(formatVersion);
    sink.putInt(0);
    sink.drain();
    sizeBytes = sink.positionBytes();
  }

  // record := crc:u32 length:u32 payload[length]; crc is crc32c over length then payload.
  private void appendFrame(Payload payload) {
    int length = payload.lengthBytes();
    crc.reset();
    crc.putInt(length);
    payload.writeTo(crc);
    sink.putInt(crc.value());
    sink.putInt(length);
    long payloadStart = sink.positionBytes();
    payload.writeTo(sink);
    long written = sink.positionBytes() - payloadStart;
    // Invariant: the frame's length field names exactly the bytes that follow it.
    if (written != length) {
      throw new IllegalStateException(
          path + ": payload wrote " + written + " bytes but declared " + length);
    }
  }
}
