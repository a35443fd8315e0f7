package dev.shale.server.metrics;

import dev.shale.server.ScanViews;
import dev.shale.server.http.AnswerBudget;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * The node's memory budget, its answers and its scans' read views ({@code shale_memory_budget_bytes},
 * {@code shale_answer_*}, {@code shale_scan_views}), read at each scrape; the engine's native memory is in
 * {@link EngineCollector}, the process's resident memory in the JVM's own
 * ({@code process_resident_memory_bytes}).
 */
final class MemoryCollector implements MultiCollector {
  private final long budgetBytes;
  private final AnswerBudget answers;
  private final ScanViews scanViews;

  MemoryCollector(long budgetBytes, AnswerBudget answers, ScanViews scanViews) {
    this.budgetBytes = budgetBytes;
    this.answers = answers;
    this.scanViews = scanViews;
  }

  @Override
  public MetricSnapshots collect() {
    Snapshots snapshots = new Snapshots();
    // Left out without a budget: a 0 would read as a node allowed no memory at all.
    if (budgetBytes > 0) snapshots.gauge("shale_memory_budget_bytes", "The node's memory budget (--memory)", budgetBytes);
    return snapshots
        .gauge("shale_answer_bytes", "Bytes of answers read and not yet written (heap copies and lent values)",
            answers.heldBytes())
        .gauge("shale_answer_limit_bytes", "The answer budget (--max-inflight-answers)", answers.limitBytes())
        .gauge("shale_scan_views", "Scans holding an engine iterator (its tables, memtables and read-ahead windows) now; "
            + "a scan waiting for its reader holds none", scanViews.open())
        .build();
  }
}
