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
 * The footer at the end of a table (docs/format.md, "Footer"): where the index and filter blocks
 * are, the record count and version bounds, and from format_version 4 the table's own file
 * number. {@code filter} has length 0 when the table has no filter, and then starts where the
 * index does.
 *
 * @param fileNumber the number of the name the table was written under; {@link #NO_FILE_NUMBER}
 *     in a footer of format_version 1 to 3, which does not record it
 */
record Footer(
    BlockHandle index, BlockHandle filter, long entryCount, long minVersion, long maxVersion, int formatVersion,
    long fileNumber) {
  /*
   * Layout. The last 64 bytes (footer_fields) are alike in every version: the fields at 0..48,
   * format_version at 48, crc at 52, magic at 56. Format 4 puts file_number in the 8 bytes before
   * them and covers it with the crc. So the magic and the version are found before the footer's
   * length is known, and that length follows from the version.
   */

  /** What {@link #fileNumber} holds for a table of format_version 1 to 3. File numbers start at 1. */
  static final long NO_FILE_NUMBER = 0;

  private static final int FORMAT_VERSION_AT = 48; // in footer_fields
  private static final int CRC_AT = 52;
  private static final int MAGIC_AT = 56;

  /** The footer's length in a table of {@code formatVersion}: 72 bytes from format 4, 64 before. */
  static int bytes(int formatVersion) {
    return formatVersion >= TableFormat.FORMAT_VERSION_4 ? TableFormat.FOOTER_V4_BYTES : TableFormat.FOOTER_BYTES;
  }

  /** The footer's bytes: [file_number,] the fields, format_version, crc32c of all before it, magic. */
  byte[] encode() {
    int length = bytes(formatVersion);
    ByteBuffer bytes = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
    if (length == TableFormat.FOOTER_V4_BYTES) bytes.putLong(fileNumber);
    bytes.putLong(index.offset()).putInt((int) index.length());
    bytes.putLong(filter.offset()).putInt((int) filter.length());
    bytes.putLong(entryCount).putLong(minVersion).putLong(maxVersion);
    bytes.putInt(formatVersion);
    CRC32C crc = new CRC32C();
    crc.update(bytes.array(), 0, bytes.position());
    bytes.putInt((int) crc.getValue());
    bytes.putLong(TableFormat.MAGIC);
    return bytes.array();
  }

  /**
   * Reads and checks the footer at the end of {@code file}, of {@code fileBytes} bytes ({@code
   * path} names it in errors): magic, format version, crc, and that the filter and index blocks
   * tile the bytes between the data blocks and the footer.
   */
  static Footer read(Vfs.ReadableFile file, long fileBytes, Path path) throws IOException {
    if (fileBytes < TableFormat.FOOTER_BYTES + TableFormat.MIN_DATA_BLOCK_BYTES) {
      throw TableCorruption.at(path, 0, "file of " + fileBytes + " bytes is too short to be a table");
    }
    // The longest footer fits: a table holds a data block before even the shortest one.
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment tail = arena.allocate(TableFormat.FOOTER_V4_BYTES);
      file.readFully(tail, fileBytes - TableFormat.FOOTER_V4_BYTES);
      return decode(tail, fileBytes, path);
    }
  }

  /** Checks {@code tail}, the last 72 bytes of a table of {@code fileBytes} bytes, as {@link #read} does. */
  static Footer decode(MemorySegment tail, long fileBytes, Path path) {
    MemorySegment fields = tail.asSlice(tail.byteSize() - TableFormat.FOOTER_BYTES);
    long fieldsOffset = fileBytes - TableFormat.FOOTER_BYTES;
    if (fields.get(U64, MAGIC_AT) != TableFormat.MAGIC) {
      throw TableCorruption.at(path, fieldsOffset, "bad magic: not a table, or truncated");
    }
    // Read before the crc is checked, to know what the crc covers: a damaged version makes the
    // crc fail (over whichever bytes it names) as surely as any other damaged footer byte.
    int formatVersion = fields.get(U32, FORMAT_VERSION_AT);
    if (formatVersion < TableFormat.FORMAT_VERSION_1 || formatVersion > TableFormat.LATEST_FORMAT_VERSION) {
      throw TableCorruption.at(path, fieldsOffset, "unknown table format_version " + formatVersion);
    }
    int footerBytes = bytes(formatVersion);
    long footerOffset = fileBytes - footerBytes;
    if (footerOffset < TableFormat.MIN_DATA_BLOCK_BYTES) {
      throw TableCorruption.at(path, 0, "file of " + fileBytes + " bytes is too short to be a table");
    }
    MemorySegment footer = tail.asSlice(tail.byteSize() - footerBytes);
    int crcAt = footerBytes - TableFormat.FOOTER_BYTES + CRC_AT;
    if (footer.get(U32, crcAt) != TableFormat.crc32c(footer.asSlice(0, crcAt))) {
      throw TableCorruption.at(path, footerOffset, "footer fails its crc");
    }
    long fileNumber = footerBytes == TableFormat.FOOTER_V4_BYTES ? footer.get(U64, 0) : NO_FILE_NUMBER;
    Footer decoded = new Footer(
        new BlockHandle(fields.get(U64, 0), Integer.toUnsignedLong(fields.get(U32, 8))),
        new BlockHandle(fields.get(U64, 12), Integer.toUnsignedLong(fields.get(U32, 20))),
        fields.get(U64, 24), fields.get(U64, 32), fields.get(U64, 40), formatVersion, fileNumber);
    decoded.checkFields(footerOffset, path);
    return decoded;
  }

  /** The data blocks occupy [0, dataEnd()): everything before the filter block. */
  long dataEnd() {
    return filter.offset();
  }

  /** Where the footer starts: the index block ends there. */
  long offset(long fileBytes) {
    return fileBytes - bytes(formatVersion);
  }

  private void checkFields(long footerOffset, Path path) {
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
    if (formatVersion >= TableFormat.FORMAT_VERSION_4 && fileNumber < 1) {
      throw TableCorruption.at(path, footerOffset, "implausible file_number " + Long.toUnsignedString(fileNumber));
    }
  }
}
