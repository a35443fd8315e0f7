package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How a compaction's sources share their read-ahead (docs/design.md, "Reading tables"). */
class ReadAheadTest {
  private static final long MIB = 1 << 20;

  @Test
  void aFewSourcesRead2MiBEachAndManyShare16MiB() {
    for (int sources = 1; sources <= 8; sources++) {
      assertThat(ReadAhead.forCompaction(sources).maxBytes()).as("%d sources", sources).isEqualTo(2 * MIB);
    }
    ReadAhead stalled = ReadAhead.forCompaction(36 + 6); // every level-0 table of a stalled store, and six levels
    assertThat(stalled.firstBytes()).isEqualTo(stalled.maxBytes()).isEqualTo(16 * MIB / 42);
    assertThat(ReadAhead.forCompaction(200).maxBytes()).as("never below 256 KiB").isEqualTo(256 << 10);
  }

  @Test
  void theBoundOfWhatACompactionHoldsCoversEveryCompactionWithFewerSources() {
    long before = 0;
    for (int sources = 1; sources <= 300; sources++) {
      long bound = ReadAhead.compactionBytes(sources);
      assertThat(bound).as("%d sources", sources).isGreaterThanOrEqualTo(before)
          .isGreaterThanOrEqualTo(sources * ReadAhead.forCompaction(sources).maxBytes());
      before = bound;
    }
    assertThat(ReadAhead.compactionBytes(42)).isEqualTo(16 * MIB);
  }
}
