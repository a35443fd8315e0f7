package dev.shale.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Keys;
import dev.shale.testkit.TestSeed;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;

/** Keys, the fillrandom permutation and values: what makes both engines see the same data. */
class KeysAndValuesTest {
  @Test
  void keysAreSixteenZeroPaddedDigitsInNumericOrder() {
    assertThat(new String(KeyFormat.key(42), StandardCharsets.US_ASCII)).isEqualTo("0000000000000042");
    assertThat(KeyFormat.index(KeyFormat.key(KeyFormat.MAX_KEYS))).isEqualTo(KeyFormat.MAX_KEYS);
    SplittableRandom random = new SplittableRandom(TestSeed.forTest("keysAreSixteenZeroPaddedDigitsInNumericOrder"));
    for (int n = 0; n < 10_000; n++) {
      long a = random.nextLong(KeyFormat.MAX_KEYS);
      long b = random.nextLong(KeyFormat.MAX_KEYS);
      assertThat(Integer.signum(Keys.compare(KeyFormat.key(a), KeyFormat.key(b)))).isEqualTo(Long.signum(a - b));
    }
    assertThatThrownBy(() -> KeyFormat.key(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void missingKeysSortBetweenExistingKeys() {
    for (long i : new long[] {0, 1, 9, 10, 999, 123_456}) {
      byte[] missing = KeyFormat.missingKey(i);
      assertThat(Keys.compare(KeyFormat.key(i), missing)).isNegative();
      assertThat(Keys.compare(missing, KeyFormat.key(i + 1))).isNegative();
      assertThat(KeyFormat.index(missing)).isEqualTo(-1);
    }
  }

  @Test
  void permutationHitsEveryIndexExactlyOnce() {
    long seed = TestSeed.forTest("permutationHitsEveryIndexExactlyOnce");
    for (int n : new int[] {1, 2, 3, 7, 64, 1000, 65_537, 200_003}) {
      KeyPermutation permutation = new KeyPermutation(n, seed);
      BitSet seen = new BitSet(n);
      for (int i = 0; i < n; i++) {
        long image = permutation.apply(i);
        assertThat(image).isBetween(0L, n - 1L);
        assertThat(seen.get((int) image)).as("n=%d: %d hit twice", n, image).isFalse();
        seen.set((int) image);
      }
      assertThat(seen.cardinality()).isEqualTo(n);
    }
  }

  @Test
  void permutationIsSeededAndNotTheIdentity() {
    KeyPermutation a = new KeyPermutation(100_000, 1);
    KeyPermutation b = new KeyPermutation(100_000, 1);
    KeyPermutation c = new KeyPermutation(100_000, 2);
    int fixedPoints = 0;
    int differ = 0;
    for (int i = 0; i < 1000; i++) {
      assertThat(a.apply(i)).isEqualTo(b.apply(i));
      if (a.apply(i) == i) fixedPoints++;
      if (a.apply(i) != c.apply(i)) differ++;
    }
    assertThat(fixedPoints).isLessThan(10);
    assertThat(differ).isGreaterThan(990);
  }

  @Test
  void valuesHaveTheSizeAskedAndDifferFromEachOther() {
    ValueSource values = new ValueSource(100, 5);
    SplittableRandom random = new SplittableRandom(5);
    byte[] first = values.next(random);
    byte[] second = values.next(random);
    assertThat(first).hasSize(100);
    assertThat(second).hasSize(100).isNotEqualTo(first);
    assertThat(new ValueSource(3 << 20, 5).next(random)).hasSize(3 << 20);
  }

  @Test
  void textValuesCompressAndRandomOnesDoNot() {
    SplittableRandom random = new SplittableRandom(5);
    ValueSource text = new ValueSource(4096, 5, ValueKind.TEXT);
    byte[] a = text.next(random);
    byte[] b = text.next(random);
    assertThat(a).hasSize(4096).isNotEqualTo(b);
    assertThat(new String(a, StandardCharsets.US_ASCII)).contains("\"email\":\"").contains("@example.com");
    assertThat(deflatedSize(a)).as("text deflates to under half").isLessThan(a.length / 2);
    byte[] noise = new ValueSource(4096, 5, ValueKind.RANDOM).next(random);
    assertThat(deflatedSize(noise)).as("random bytes do not shrink").isGreaterThan(noise.length * 9 / 10);
    assertThat(ValueKind.named(" TEXT ")).isEqualTo(ValueKind.TEXT);
    assertThatThrownBy(() -> ValueKind.named("json")).hasMessageContaining("use random or text");
  }

  private static int deflatedSize(byte[] bytes) {
    Deflater deflater = new Deflater();
    deflater.setInput(bytes);
    deflater.finish();
    byte[] out = new byte[bytes.length * 2 + 64];
    int size = deflater.deflate(out);
    deflater.end();
    return size;
  }
}
