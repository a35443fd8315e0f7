package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.testkit.TestSeed;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link FoundRecord#newer} picks, in place, what {@link Entry#newer} picks of the copies. */
class FoundRecordTest {
  private static final byte[] KEY = {'k'};

  @Test
  void newerAgreesWithEntryNewerOnRandomPairs() {
    long seed = TestSeed.forTest("newerAgreesWithEntryNewerOnRandomPairs");
    Random random = new Random(seed);
    for (int i = 0; i < 20_000; i++) {
      FoundRecord a = record(random);
      FoundRecord b = record(random);
      Entry expected = Entry.newer(a.copy(KEY), b.copy(KEY));
      assertThat(FoundRecord.newer(a, b).copy(KEY)).as("seed %d, %s against %s", seed, a, b).isEqualTo(expected);
    }
  }

  // Few versions and short values over few byte values: ties, prefixes and equal values are common.
  private static FoundRecord record(Random random) {
    long version = random.nextInt(3);
    if (random.nextInt(5) == 0) return new FoundRecord(version, null);
    byte[] value = new byte[random.nextInt(4)];
    for (int i = 0; i < value.length; i++) value[i] = (byte) (random.nextBoolean() ? 0x7f : 0x80 + random.nextInt(2));
    return new FoundRecord(version, MemorySegment.ofArray(value));
  }
}
