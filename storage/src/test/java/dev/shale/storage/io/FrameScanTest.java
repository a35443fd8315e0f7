package dev.shale.storage.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.testkit.TestSeed;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resynchronising in one pass finds exactly what checking every offset's crc directly finds (the
 * first valid frame from an offset on, and the run of valid frames from there), over seeded files
 * of valid frames, frames failing their crc, garbage, zeros, and frames nested in other frames'
 * values (overlapping candidates, valid and not); and refuses, naming the file, when more
 * candidates overlap than it holds.
 */
class FrameScanTest {
  // The log's shape (docs/format.md, "Write-ahead log"): length = 17 + key_length + value_length.
  private static final RecordShape SHAPE = (file, payload, length) -> length >= 17
      && (file.byteSize() - payload < 17 || 17 + u32(file, payload + 9) + u32(file, payload + 13) == length);

  @TempDir Path dir;

  @Test
  void onePassFindsWhatCheckingEveryOffsetFinds() throws IOException {
    long seed = TestSeed.forTest("FrameScanTest.onePass");
    Random random = new Random(seed);
    for (int round = 0; round < 200; round++) {
      byte[] bytes = randomFile(random);
      Path path = dir.resolve("round-" + round + ".wal");
      Files.write(path, bytes);
      try (Arena arena = Arena.ofConfined(); FileChannel channel = FileChannel.open(path)) {
        MemorySegment file = channel.map(FileChannel.MapMode.READ_ONLY, 0, bytes.length, arena);
        for (int probe = 0; probe < 20; probe++) {
          long scanFrom = 16 + random.nextInt(bytes.length - 15);
          long nextByLength = random.nextInt(4) == 0 ? random.nextInt(bytes.length + 8) : -1;
          String what = "seed " + seed + ", round " + round + ", scan from " + scanFrom + ", next by length " + nextByLength;
          FrameScan scan = new FrameScan(path, file, SHAPE);
          FrameScan.After after = scan.validFramesAfter(scanFrom - 1, nextByLength, scanFrom);
          long first = nextByLength >= 0 && validByBruteForce(file, nextByLength) ? nextByLength : -1;
          for (long at = scanFrom; first < 0 && at < bytes.length; at++) {
            if (validByBruteForce(file, at)) first = at;
          }
          long count = 0;
          for (long at = first; first >= 0 && validByBruteForce(file, at); at = FrameScan.end(file, at)) count++;
          assertThat(after).as(what).isEqualTo(first < 0 ? FrameScan.After.NONE : new FrameScan.After(first, count));
          assertThat(scan.checkedBytes()).as(what).isLessThanOrEqualTo(4L * bytes.length);
        }
      }
    }
  }

  @Test
  void moreOverlappingCandidatesThanItHoldsIsRefusedNamingTheFile() throws IOException {
    int headers = FrameScan.MAX_PENDING_FRAMES + 1;
    int headerBytes = 8 + 17;
    ByteBuffer bytes = ByteBuffer.allocate(16 + headers * headerBytes + 100).order(ByteOrder.LITTLE_ENDIAN);
    bytes.position(16);
    // Each claims a frame (with a wrong crc) to the end of the file: all wait for the pass at once.
    for (int i = 0; i < headers; i++) {
      long length = bytes.capacity() - bytes.position() - 8;
      bytes.putInt(0).putInt((int) length).put((byte) 1).putLong(0).putInt(0).putInt((int) (length - 17));
    }
    Path path = dir.resolve("000007.wal");
    Files.write(path, bytes.array());
    try (Arena arena = Arena.ofConfined(); FileChannel channel = FileChannel.open(path)) {
      MemorySegment file = channel.map(FileChannel.MapMode.READ_ONLY, 0, bytes.capacity(), arena);
      assertThatThrownBy(() -> new FrameScan(path, file, SHAPE).validFramesAfter(15, -1, 16))
          .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(path))
          .hasMessageContaining("cannot tell whether the bad record at offset 15 is a torn tail")
          .hasMessageContaining("truncate the file to 15 bytes");
    }
  }

  private static boolean validByBruteForce(MemorySegment file, long at) {
    if (at < 0 || file.byteSize() - at < 8) return false;
    long length = u32(file, at + 4);
    if (length > file.byteSize() - at - 8 || !SHAPE.plausible(file, at + 8, length)) return false;
    CRC32C crc = new CRC32C();
    crc.update(file.asSlice(at + 4, 4 + length).asByteBuffer());
    return (int) crc.getValue() == (int) u32(file, at);
  }

  // A header, then pieces: valid frames, frames failing their crc, garbage, zeros, and frames
  // whose value holds other frames.
  private static byte[] randomFile(Random random) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(new byte[16]);
    int pieces = 1 + random.nextInt(30);
    for (int i = 0; i < pieces; i++) out.writeBytes(piece(random, 3));
    return out.toByteArray();
  }

  private static byte[] piece(Random random, int nesting) {
    switch (random.nextInt(nesting > 0 ? 6 : 4)) {
      case 0, 1:
        return frame(randomBytes(random, 1 + random.nextInt(8)), randomBytes(random, random.nextInt(40)), true);
      case 2:
        return frame(randomBytes(random, 1 + random.nextInt(8)), randomBytes(random, random.nextInt(40)), false);
      case 3:
        return random.nextBoolean() ? randomBytes(random, 1 + random.nextInt(40)) : new byte[1 + random.nextInt(40)];
      default: {
        ByteArrayOutputStream value = new ByteArrayOutputStream();
        value.writeBytes(randomBytes(random, random.nextInt(5)));
        for (int i = 1 + random.nextInt(5); i > 0; i--) value.writeBytes(piece(random, nesting - 1));
        return frame(randomBytes(random, 1 + random.nextInt(8)), value.toByteArray(), random.nextBoolean());
      }
    }
  }

  // record := crc:u32 length:u32 type:u8 version:u64 key_length:u32 value_length:u32 key value
  private static byte[] frame(byte[] key, byte[] value, boolean crcHolds) {
    int length = 17 + key.length + value.length;
    ByteBuffer frame = ByteBuffer.allocate(8 + length).order(ByteOrder.LITTLE_ENDIAN);
    frame.putInt(0).putInt(length).put((byte) 1).putLong(42).putInt(key.length).putInt(value.length).put(key).put(value);
    CRC32C crc = new CRC32C();
    crc.update(frame.array(), 4, 4 + length);
    frame.putInt(0, (int) crc.getValue() ^ (crcHolds ? 0 : 1));
    return frame.array();
  }

  private static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  private static long u32(MemorySegment file, long offset) {
    return Integer.toUnsignedLong(file.get(RecordFormat.U32, offset));
  }
}
