package dev.shale.storage.io;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.TestSeed;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The crc combination FrameScan relies on, checked against java.util.zip.CRC32C itself. */
class Crc32cCombineTest {
  @Test
  void combiningTheCrcsOfTwoPartsGivesTheCrcOfTheWhole() {
    long seed = TestSeed.forTest("Crc32cCombineTest.combine");
    Random random = new Random(seed);
    for (int round = 0; round < 2_000; round++) {
      byte[] whole = new byte[random.nextInt(round < 1_000 ? 64 : 70_000)];
      random.nextBytes(whole);
      int split = whole.length == 0 ? 0 : random.nextInt(whole.length + 1);
      int crcOfA = crc(whole, 0, split);
      int crcOfB = crc(whole, split, whole.length);
      int crcOfAB = crc(whole, 0, whole.length);
      String what = "seed " + seed + ", round " + round + ": " + whole.length + " bytes split at " + split;
      assertThat(Crc32cCombine.combine(crcOfA, crcOfB, whole.length - split)).as(what).isEqualTo(crcOfAB);
      assertThat(Crc32cCombine.ofSuffix(crcOfA, crcOfAB, whole.length - split)).as(what).isEqualTo(crcOfB);
    }
  }

  // Lengths whose bits reach far up the table of powers: B is zeros, whose crc CRC32C computes
  // from one buffer fed again and again.
  @Test
  void combiningWorksForLongSuffixes() {
    byte[] a = "the bytes before".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] zeros = new byte[1 << 20];
    for (long lengthOfB : new long[] {(1L << 20) - 1, 1L << 20, 3L << 20, (5L << 20) + 12_345, 33L << 20}) {
      CRC32C b = new CRC32C();
      CRC32C ab = new CRC32C();
      ab.update(a);
      for (long left = lengthOfB; left > 0; left -= Math.min(left, zeros.length)) {
        int chunk = (int) Math.min(left, zeros.length);
        b.update(zeros, 0, chunk);
        ab.update(zeros, 0, chunk);
      }
      int crcOfA = crc(a, 0, a.length);
      assertThat(Crc32cCombine.combine(crcOfA, (int) b.getValue(), lengthOfB))
          .as("B of %d zero bytes", lengthOfB).isEqualTo((int) ab.getValue());
      assertThat(Crc32cCombine.ofSuffix(crcOfA, (int) ab.getValue(), lengthOfB))
          .as("B of %d zero bytes", lengthOfB).isEqualTo((int) b.getValue());
    }
  }

  @Test
  void anEmptySuffixChangesNothingAndAnEmptyPrefixHasCrcZero() {
    byte[] bytes = new byte[100];
    Arrays.fill(bytes, (byte) 0x5A);
    int crc = crc(bytes, 0, bytes.length);
    assertThat(Crc32cCombine.combine(crc, 0, 0)).isEqualTo(crc);
    assertThat(Crc32cCombine.combine(0, crc, bytes.length)).isEqualTo(crc);
    assertThat(crc(bytes, 0, 0)).isZero();
  }

  private static int crc(byte[] bytes, int from, int to) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, from, to - from);
    return (int) crc.getValue();
  }
}
