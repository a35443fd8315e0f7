package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link MemoryReadOdds}: every read tries while tries are answered; one in SAMPLE while they need the disk; back when answered again. */
class MemoryReadOddsTest {
  @Test
  void readsTryWhileMemoryAnswersThemAndOnlySampleWhileItDoesNot() {
    MemoryReadOdds odds = new MemoryReadOdds();
    for (int i = 0; i < 1_000; i++) {
      assertThat(odds.worthTrying()).as("answered tries: read %d tries", i).isTrue();
      odds.tried(true);
    }

    int tries = 0;
    for (int i = 0; i < 1_600; i++) {
      if (odds.worthTrying()) {
        tries++;
        odds.tried(false);
      }
    }
    // The share falls below a quarter after 44 tries ((31/32)^44 < 1/4); then one read in 16 tries.
    assertThat(odds.share()).isLessThan(MemoryReadOdds.MIN_SHARE);
    assertThat(tries).isBetween(44 + (1_600 - 44) / MemoryReadOdds.SAMPLE, 45 + (1_600 - 44) / MemoryReadOdds.SAMPLE + 1);

    // Memory answers again (a cache warmed up): the sampled tries raise the share, and every read tries.
    int reads = 0;
    while (odds.share() < MemoryReadOdds.MIN_SHARE) {
      if (odds.worthTrying()) odds.tried(true);
      assertThat(++reads).as("reads before trying them all again").isLessThan(1_000);
    }
    assertThat(odds.worthTrying()).isTrue();
  }

  @Test
  void aFewTriesNeedingTheDiskAmongAnsweredOnesStopNothing() {
    MemoryReadOdds odds = new MemoryReadOdds();
    for (int i = 0; i < 10_000; i++) {
      assertThat(odds.worthTrying()).as("read %d, a third of tries needing the disk", i).isTrue();
      odds.tried(i % 3 != 0);
    }
  }
}
