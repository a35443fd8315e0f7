package dev.shale.storage.io;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * Finds valid frames after a bad one in a mapped log or manifest file (docs/format.md,
 * "Write-ahead log": resynchronising), which tells a torn tail (nothing valid after it) from
 * damage in the middle of acknowledged records.
 */
final class FrameScan {
  /**
   * Where the first valid frame after a bad one starts, and how many valid frames follow in a row
   * from there. {@code count} is 0 and {@code offset} -1 when none was found.
   */
  record After(long offset, long count, long checkedBytes) {}

  private FrameScan() {}

  /**
   * The valid frames after a bad frame: first at {@code nextByLength} (where the bad frame's own
   * length says the next one starts; -1 when that length is not plausible), else at the first
   * offset from {@code scanFrom} on at which a frame passes its crc.
   */
  static After validFramesAfter(MemorySegment file, long nextByLength, long scanFrom) {
    long[] checked = new long[1];
    long first = nextByLength >= 0 && isValidFrame(file, nextByLength, checked) ? nextByLength : -1;
    for (long offset = scanFrom; first < 0 && offset <= file.byteSize() - RecordFormat.FRAME_HEADER_BYTES; offset++) {
      if (isValidFrame(file, offset, checked)) first = offset;
    }
    if (first < 0) return new After(-1, 0, checked[0]);
    long count = 0;
    for (long offset = first; isValidFrame(file, offset, checked); offset = end(file, offset)) count++;
    return new After(first, count, checked[0]);
  }

  /**
   * True if a whole frame lies at {@code offset} and its crc holds; adds the bytes read to
   * {@code checked[0]}.
   */
  static boolean isValidFrame(MemorySegment file, long offset, long[] checked) {
    long remaining = file.byteSize() - offset;
    if (offset < 0 || remaining < RecordFormat.FRAME_HEADER_BYTES) return false;
    checked[0] += RecordFormat.FRAME_HEADER_BYTES;
    long length = Integer.toUnsignedLong(file.get(RecordFormat.U32, offset + 4));
    if (length > remaining - RecordFormat.FRAME_HEADER_BYTES) return false;
    long covered = RecordFormat.FRAME_HEADER_BYTES - RecordFormat.CRC_COVERED_FROM + length;
    checked[0] += covered;
    return crc32c(file, offset + RecordFormat.CRC_COVERED_FROM, covered)
        == file.get(RecordFormat.U32, offset);
  }

  /** Where the frame at {@code offset} ends (its header's length field taken as is). */
  static long end(MemorySegment file, long offset) {
    return offset + RecordFormat.FRAME_HEADER_BYTES
        + Integer.toUnsignedLong(file.get(RecordFormat.U32, offset + 4));
  }

  static int crc32c(MemorySegment file, long offset, long length) {
    CRC32C crc = new CRC32C();
    crc.update(file.asSlice(offset, length).asByteBuffer());
    return (int) crc.getValue();
  }
}
