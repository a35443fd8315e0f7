package dev.shale.server.metrics;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineHealth;
import dev.shale.storage.EngineStats;
import dev.shale.storage.StorageException;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine's metrics ({@code shale_engine_*}), read from {@link Engine#stats} and
 * {@link Engine#health} once per scrape:
 * nothing is recorded between scrapes, so they cost the write and read paths nothing beyond
 * the engine's own counters.
 */
final class EngineCollector implements MultiCollector {
  private final Engine engine;

  EngineCollector(Engine engine) {
    this.engine = engine;
  }

  @Override
  public MetricSnapshots collect() {
    EngineStats s;
    try {
      s = engine.stats();
    } catch (StorageException e) {
      return MetricSnapshots.of(); // the engine is closed: the node is stopping
    }
    Snapshots snapshots = new Snapshots();
    snapshots
        .gauge("shale_engine_memtable_bytes", "Bytes in the active memtable", s.memtableBytes())
        .gauge("shale_engine_immutable_memtables", "Frozen memtables waiting for their flush", s.immutableMemtables())
        .gauge("shale_engine_tables", "Table files at each level", "level", byLevel(s.tablesPerLevel()))
        .gauge("shale_engine_table_bytes", "Bytes of table files at each level", "level", byLevel(s.bytesPerLevel()))
        .counter("shale_engine_flushes", "Memtable flushes completed", s.flushes())
        .counter("shale_engine_flush_written_bytes", "Bytes of tables flushes wrote", s.flushBytesWritten())
        .counter("shale_engine_compactions", "Compactions completed (trivial moves included)", s.compactions())
        .counter("shale_engine_compaction_failures", "Compactions that failed (each logged)", s.compactionFailures())
        .counter("shale_engine_flush_failures", "Flush attempts that failed (each logged, and retried)", s.flushFailures())
        .counter("shale_engine_compaction_read_bytes", "Bytes of input tables compactions read", s.compactionBytesRead())
        .counter("shale_engine_compaction_written_bytes", "Bytes of tables compactions wrote", s.compactionBytesWritten())
        .counter("shale_engine_write_stalls", "Writes that waited for a flush or compaction to make room", s.writeStalls())
        .counter("shale_engine_write_stall_seconds", "Time the engine spent stalled, writes waiting for room",
            Buckets.seconds(s.writeStallNanos()))
        .counter("shale_engine_write_stall_rejections", "Writes refused after stalling for the stall timeout (503)",
            s.writeStallRejections())
        .counter("shale_engine_write_slowdowns", "Write groups delayed at the level-0 slowdown trigger", s.writeSlowdowns())
        .counter("shale_engine_write_slowdown_seconds", "Time write groups slept at the slowdown trigger",
            Buckets.seconds(s.writeSlowdownNanos()))
        .summary("shale_engine_log_fsync_duration_seconds", "fsyncs of the write-ahead log and the time they took",
            s.logFsyncs(), Buckets.seconds(s.logFsyncNanos()))
        .counter("shale_engine_block_reads", "Data blocks read from table files (reads, scans, compactions)", s.blockReads())
        .counter("shale_engine_block_cache_hits", "Block reads found in the block cache, already checked and decompressed",
            s.blockCacheHits())
        .gauge("shale_engine_block_cache_bytes", "Bytes the block cache holds (native memory)", s.blockCacheBytes())
        .gauge("shale_engine_block_memory_bytes", "Native memory of table blocks: cached, being read, or lent to answers",
            s.blockMemoryBytes())
        .gauge("shale_engine_table_index_bytes", "Native memory of the open tables' filters and indexes, which stay resident",
            s.tableIndexBytes())
        .gauge("shale_engine_frozen_memtable_bytes", "Bytes in the frozen memtables waiting for their flush (native memory)",
            s.frozenMemtableBytes())
        .gauge("shale_engine_value_leases", "Values lent to answers and not yet written", s.valueLeases())
        .gauge("shale_engine_disk_reserve_bytes", "Free disk space below which the engine refuses writes (--disk-reserve)",
            s.diskReserveBytes());
    EngineHealth health = engine.health();
    snapshots
        .gauge("shale_engine_damage_reports", "Damage the engine serves around or accepted at open, as /v0/status lists it",
            health.damage().size())
        .gauge("shale_engine_log_dropped_bytes",
            "Bytes of log records dropped at open as accepted damage (not one record cut short by a crash), since the node started",
            health.droppedLogBytes());
    // Left out when the file system cannot say: a made-up value would set off or hide alerts.
    if (s.diskFreeBytes() >= 0) {
      snapshots.gauge("shale_engine_disk_free_bytes", "Bytes free for the engine on its data directory's file system",
          s.diskFreeBytes());
    }
    return snapshots.build();
  }

  private static Map<String, Number> byLevel(List<? extends Number> perLevel) {
    Map<String, Number> levels = new LinkedHashMap<>();
    for (int level = 0; level < perLevel.size(); level++) levels.put(Integer.toString(level), perLevel.get(level));
    return levels;
  }
}
