package dev.shale.server.metrics;

import dev.shale.server.MemoryReads;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * The reads tried from memory on an event loop and those memory answered
 * ({@code shale_memory_read_tries}, {@code shale_memory_read_answers}, {@code shale_memory_read_recent_share}),
 * read at each scrape.
 */
final class MemoryReadCollector implements MultiCollector {
  private final MemoryReads reads;

  MemoryReadCollector(MemoryReads reads) {
    this.reads = reads;
  }

  @Override
  public MetricSnapshots collect() {
    return new Snapshots()
        .counter("shale_memory_read_tries", "Reads tried from memory on an event loop (GETs, replica reads)", reads.tries())
        .counter("shale_memory_read_answers", "Reads memory answered without a storage worker or the disk", reads.answered())
        .gauge("shale_memory_read_recent_share", "Share of the last ~32 tries memory answered; below 0.25 most reads skip the try",
            reads.recentShare())
        .build();
  }
}
