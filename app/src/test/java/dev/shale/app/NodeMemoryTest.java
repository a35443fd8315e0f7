package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.EngineOptions;
import org.junit.jupiter.api.Test;

/** How --memory is spent (docs/operations.md, "Memory"). */
class NodeMemoryTest {
  private static final long MIB = 1L << 20;

  @Test
  void twoGibWithAQuarterForTheHeapLeaveTheBlockCacheWhatTheFixedPartsDoNot() {
    NodeMemory memory = NodeMemory.plan(2048 * MIB, 512 * MIB, EngineOptions.defaults(), 128 * MIB, false);
    assertThat(memory.memtableBytes()).as("3 memtables of 16 MiB, and the hint store's 12 MiB").isEqualTo(60 * MIB);
    assertThat(memory.maxScans()).as("a sixteenth of the memory, 2 MiB a scan").isEqualTo(64);
    assertThat(memory.pageCacheBytes()).as("an eighth").isEqualTo(256 * MIB);
    assertThat(memory.compactionBytes()).as("the compaction's read-ahead windows, which its sources share").isEqualTo(16 * MIB);
    // 2048 - 512 heap - 192 JVM - 60 memtables - 16 compaction - 128 answers - 128 scans - 256 page cache
    assertThat(memory.blockCacheBytes()).isEqualTo(756 * MIB);
    assertThat(memory.describe()).contains("memory 2048 MiB", "heap 512 MiB", "compaction 16 MiB", "64 scans",
        "block cache with filters and indexes 756 MiB");
  }

  @Test
  void aSmallBudgetKeepsFewerScansAndAFloorOfPageCache() {
    NodeMemory memory = NodeMemory.plan(768 * MIB, 160 * MIB, EngineOptions.defaults().withMemtableSizeBytes(8 * MIB), 40 * MIB, false);
    assertThat(memory.maxScans()).isEqualTo(24);
    assertThat(memory.pageCacheBytes()).isEqualTo(96 * MIB);
    // 768 - 160 - 192 - (3 x 8 + 12) - 16 - 40 - 48 - 96
    assertThat(memory.blockCacheBytes()).isEqualTo(180 * MIB);
  }

  @Test
  void withDirectReadsThePageCacheKeepsItsFloorAndTheBlockCacheTheRest() {
    NodeMemory memory = NodeMemory.plan(2048 * MIB, 512 * MIB, EngineOptions.defaults(), 128 * MIB, true);
    assertThat(memory.pageCacheBytes()).as("gets do not read through it").isEqualTo(64 * MIB);
    // the 756 MiB of the buffered plan and the 192 MiB of page cache it no longer needs
    assertThat(memory.blockCacheBytes()).isEqualTo(948 * MIB);
  }

  @Test
  void aBudgetTooSmallForItsFixedPartsOrItsHeapIsRefusedSayingWhy() {
    assertThatThrownBy(() -> NodeMemory.plan(512 * MIB, 128 * MIB, EngineOptions.defaults(), 32 * MIB, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--memory 512 MiB is too small")
        .hasMessageContaining("under the 32 MiB it needs", false);
    assertThatThrownBy(() -> NodeMemory.plan(1024 * MIB, 600 * MIB, EngineOptions.defaults(), 150 * MIB, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the heap (600 MiB, -Xmx) takes more than half of --memory 1024 MiB", false);
  }
}
