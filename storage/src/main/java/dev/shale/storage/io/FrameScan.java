package dev.shale.storage.io;

import dev.shale.storage.CorruptionException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Finds valid frames after a bad one in a mapped log or manifest file (docs/format.md,
 * "Write-ahead log": resynchronising), which tells a torn tail (nothing valid after it) from
 * damage in the middle of acknowledged records, reading each byte of the file at most 4 times and
 * holding at most {@link #MAX_PENDING_FRAMES} candidates.
 *
 * <p>Thread safety: none; one reader uses it once.
 */
final class FrameScan {
  /*
   * Why one pass. A frame may start at any offset and claim any length, so checking the crc of
   * the bytes each offset claims reads O(n^2) bytes: a torn 15 MiB value, whose bytes claim
   * lengths of 32 KiB and 8 MiB at every fourth offset, never finished opening (issue 31).
   * Instead:
   * 1. An offset is a candidate only if its frame fits in the file and its header is one the
   *    writer can produce (RecordShape: for a log record, 17 + key_length + value_length =
   *    length): a few bytes read per offset.
   * 2. One sequential pass keeps the crc32c S(i) of the bytes [scanFrom, i). A candidate at a,
   *    ending at e, covers [a + 4, e), whose crc is S(e) xor S(a + 4)·x^(8(e - a - 4))
   *    (Crc32cCombine). It waits in a min-heap by end until the pass reaches e, then costs
   *    O(log n).
   * The frame after the bad one by its own length, and the run of valid frames counted from the
   * first one found, are each checked directly, at most n bytes each.
   */

  /**
   * At most this many candidates wait for the pass at once (20 bytes each: 5 MiB). Only bytes
   * crafted to look like a record header at every few offsets reach it, and then the scan cannot
   * tell a torn tail from damage without unbounded memory: it refuses (CorruptionException), which
   * is safe, rather than call the tail torn. A log's own records never overlap, so they never
   * wait together.
   */
  static final int MAX_PENDING_FRAMES = 1 << 18;

  /** mapped slices handed to CRC32C are at most this long (a ByteBuffer's limit is an int). */
  private static final long MAX_CRC_CHUNK_BYTES = 1 << 30;

  /**
   * Where the first valid frame after a bad one starts, and how many valid frames follow in a row
   * from there. {@code count} is 0 and {@code offset} -1 when none was found.
   */
  record After(long offset, long count) {
    static final After NONE = new After(-1, 0);
  }

  private final Path path;
  private final MemorySegment file;
  private final RecordShape shape;
  private long checkedBytes;

  FrameScan(Path path, MemorySegment file, RecordShape shape) {
    this.path = path;
    this.file = file;
    this.shape = shape;
  }

  /**
   * The valid frames after the bad frame at {@code badOffset}: first at {@code nextByLength}
   * (where the bad frame's own length says the next one starts; -1 when there is none), else at
   * the lowest offset from {@code scanFrom} on at which a frame of plausible shape passes its crc.
   *
   * @throws CorruptionException if more than {@link #MAX_PENDING_FRAMES} candidates overlap
   */
  After validFramesAfter(long badOffset, long nextByLength, long scanFrom) {
    long first = nextByLength >= 0 && isValidFrame(nextByLength)
        ? nextByLength
        : firstValidFrom(badOffset, scanFrom);
    if (first < 0) return After.NONE;
    long count = 0;
    for (long offset = first; isValidFrame(offset); offset = end(file, offset)) count++;
    return new After(first, count);
  }

  /** The bytes this scan has read: those its crcs covered and one for each offset it tried. */
  long checkedBytes() {
    return checkedBytes;
  }

  /** True if a whole frame of plausible shape lies at {@code offset} and its crc holds. */
  private boolean isValidFrame(long offset) {
    if (offset < 0 || file.byteSize() - offset < RecordFormat.FRAME_HEADER_BYTES) return false;
    long length = Integer.toUnsignedLong(file.get(RecordFormat.U32, offset + 4));
    if (!fits(offset, length)) return false;
    long covered = RecordFormat.FRAME_HEADER_BYTES - RecordFormat.CRC_COVERED_FROM + length;
    checkedBytes += covered;
    return crc32c(file, offset + RecordFormat.CRC_COVERED_FROM, covered)
        == file.get(RecordFormat.U32, offset);
  }

  // The lowest offset from scanFrom on at which a plausible frame passes its crc, or -1.
  private long firstValidFrom(long badOffset, long scanFrom) {
    CrcPass pass = new CrcPass(scanFrom);
    PendingFrames pending = new PendingFrames(MAX_PENDING_FRAMES);
    long found = -1;
    long lastStart = file.byteSize() - RecordFormat.FRAME_HEADER_BYTES;
    for (long start = scanFrom; start <= lastStart; start++) {
      // Candidates ending by here are checked before the pass moves on to this one's start.
      found = checkEndingBy(start + RecordFormat.CRC_COVERED_FROM, pending, pass, found);
      // Every candidate from here on starts after the one found: none can be the first.
      if (found >= 0) break;
      checkedBytes++;
      long length = Integer.toUnsignedLong(file.get(RecordFormat.U32, start + 4));
      if (!fits(start, length)) continue;
      long end = start + RecordFormat.FRAME_HEADER_BYTES + length;
      if (!pending.add(start, end, pass.crcTo(start + RecordFormat.CRC_COVERED_FROM))) {
        throw cannotTell(badOffset, start);
      }
    }
    return checkEndingBy(Long.MAX_VALUE, pending, pass, found);
  }

  // Checks, in order of end, the candidates ending at or before limit; returns the lowest start
  // of a valid one, this or found (-1: none yet). A candidate starting after found is dropped
  // unchecked.
  private long checkEndingBy(long limit, PendingFrames pending, CrcPass pass, long found) {
    while (!pending.isEmpty() && pending.firstEnd() <= limit) {
      long start = pending.firstStart();
      long end = pending.firstEnd();
      int crcAtStart = pending.firstCrcAtStart();
      pending.removeFirst();
      if (found >= 0 && start > found) continue;
      long coveredFrom = start + RecordFormat.CRC_COVERED_FROM;
      int covered = Crc32cCombine.ofSuffix(crcAtStart, pass.crcTo(end), end - coveredFrom);
      if (covered == file.get(RecordFormat.U32, start)) found = found < 0 ? start : Math.min(found, start);
    }
    return found;
  }

  // A frame of length bytes at offset lies in the file and has a plausible shape.
  private boolean fits(long offset, long length) {
    return length <= file.byteSize() - offset - RecordFormat.FRAME_HEADER_BYTES
        && shape.plausible(file, offset + RecordFormat.FRAME_HEADER_BYTES, length);
  }

  private CorruptionException cannotTell(long badOffset, long at) {
    return new CorruptionException(path, "cannot tell whether the bad record at offset " + badOffset
        + " is a torn tail or damage followed by valid records: more than " + MAX_PENDING_FRAMES
        + " possible records overlap at offset " + at + ", more than resynchronising holds."
        + " Nothing was deleted. To accept losing everything from offset " + badOffset
        + " on, truncate the file to " + badOffset + " bytes and open again.");
  }

  /** Where the frame at {@code offset} ends (its header's length field taken as is). */
  static long end(MemorySegment file, long offset) {
    return offset + RecordFormat.FRAME_HEADER_BYTES
        + Integer.toUnsignedLong(file.get(RecordFormat.U32, offset + 4));
  }

  static int crc32c(MemorySegment file, long offset, long length) {
    CRC32C crc = new CRC32C();
    update(crc, file, offset, length);
    return (int) crc.getValue();
  }

  private static void update(CRC32C crc, MemorySegment file, long offset, long length) {
    for (long done = 0; done < length; ) {
      long chunk = Math.min(length - done, MAX_CRC_CHUNK_BYTES);
      crc.update(file.asSlice(offset + done, chunk).asByteBuffer());
      done += chunk;
    }
  }

  // The crc32c of the bytes [from, position), moved only forward: each byte is read once.
  private final class CrcPass {
    private final CRC32C crc = new CRC32C();
    private long position;

    CrcPass(long from) {
      position = from;
    }

    /** The crc32c of [from, target); target is never behind an earlier call's. */
    int crcTo(long target) {
      assert target >= position : "the pass moves only forward";
      update(crc, file, position, target - position);
      checkedBytes += target - position;
      position = target;
      return (int) crc.getValue();
    }
  }
}
