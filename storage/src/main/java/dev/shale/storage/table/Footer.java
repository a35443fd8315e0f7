package dev.shale.storage.table;

import static dev.shale.storage.table.TableFormat.U32;
import static dev.shale.storage.table.TableFormat.U64;

import dev.shale.storage.Vfs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The last 64 bytes of a table (docs/format.md, "Footer"): where the index and filter blocks are,
 * and the record count and version bounds. {@code filter} has length 0 when the table has no
 * filter, and then starts where the index does.
 */
record Footer(
    BlockHandle index, BlockHandle filter, long entryCount, long minVersion, long maxVersion, int formatVersion) {

  /** The 64 footer bytes: the fields, format_version, crc32c of the first 52 bytes, magic. */
  byte[] encode() {
    ByteBuffer bytes = ByteBuffer.allocate(TableFormat.FOOTER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    bytes.putLong(index.offset()).putInt((int) index.length());
    bytes.putLong(filter.offset()).putInt((int) filter.length());
    bytes.putLong(entryCount).putLong(minVersion).putLong(maxVersion);
    bytes.putInt(formatVersion);
    CRC32C crc = new CRC32C();
    crc.update(bytes.array(), 0, TableFormat.FOOTER_CRC_COVERED_BYTES);
    bytes.putInt((int) crc.getValue());
    bytes.putLong(TableFormat.MAGIC);
    return bytes.array();
  }

  /**
   * Reads and checks the footer at the end of {@code file}, of {@code fileBytes} bytes ({@code
   * path} names it in errors): magic, crc, format version, and that the filter and index blocks
   * tile the bytes between the data blocks and the footer.
   */
  static Footer read(Vfs.ReadableFile file, long fileBytes, Path path) throws IOException {
    long footerOffset = fileBytes - TableFormat.FOOTER_BYTES;
    if (footerOffset < TableFormat.MIN_DATA_BLOCK_BYTES) {
      throw TableCorruption.at(path, 0, "file of " + fileBytes + " bytes is too short to be a table");
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment footer = arena.allocate(TableFormat.FOOTER_BYTES);
      file.readFully(footer, footerOffset);
      return decode(footer, footerOffset, path);
    }
  }

  /** Checks the footer bytes {@code footer}, found at {@code footerOffset} (see {@link #read}). */
  static Footer decode(MemorySegment footer, long footerOffset, Path path) {
    if (footer.get(U64, 56) != TableFormat.MAGIC) {
      throw TableCorruption.at(path, footerOffset, "bad magic: not a table, or truncated");
    }
    int storedCrc = footer.get(U32, 52);
    if (storedCrc != TableFormat.crc32c(footer.asSlice(0, TableFormat.FOOTER_CRC_COVERED_BYTES))) {
      throw TableCorruption.at(path, footerOffset, "footer fails its crc");
    }
    int formatVersion = footer.get(U32, 48);
    if (formatVersion < TableFormat.FORMAT_VERSION_1 || formatVersion > TableFormat.FORMAT_VERSION_3) {
      throw TableCorruption.at(path, footerOffset, "unknown table format_version " + formatVersion);
    }
    Footer decoded = new Footer(
        new BlockHandle(footer.get(U64, 0), Integer.toUnsignedLong(footer.get(U32, 8))),
        new BlockHandle(footer.get(U64, 12), Integer.toUnsignedLong(footer.get(U32, 20))),
        footer.get(U64, 24), footer.get(U64, 32), footer.get(U64, 40), formatVersion);
    decoded.checkLayout(footerOffset, path);
    return decoded;
  }

  /** The data blocks occupy [0, dataEnd()): everything before the filter block. */
  long dataEnd() {
    return filter.offset();
  }

  private void checkLayout(long footerOffset, Path path) {
    if (index.end() != footerOffset || index.offset() < 0 || index.offset() > footerOffset) {
      throw TableCorruption.at(
          path, footerOffset, "index block " + index + " does not end where the footer starts");
    }
    boolean filterAfterData =
        filter.offset() >= TableFormat.MIN_DATA_BLOCK_BYTES && filter.offset() <= index.offset();
    if (filter.end() != index.offset() || !filterAfterData) {
      throw TableCorruption.at(path, footerOffset,
          "filter block " + filter + " does not end where the index starts, after the data");
    }
    if (entryCount < 1 || minVersion > maxVersion) {
      throw TableCorruption.at(path, footerOffset,
          "implausible entry_count " + entryCount + " or versions [" + minVersion + ", " + maxVersion + "]");
    }
  }
}
