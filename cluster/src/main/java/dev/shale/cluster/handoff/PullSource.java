package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Entry;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How a node pulls the records it gains from a node that holds them: the server implements it
 * with a SCAN with a handoff filter over the internode protocol; tests may with anything that
 * streams in key order.
 */
@FunctionalInterface
public interface PullSource {
  /** Where pulled records go. */
  @FunctionalInterface
  interface Sink {
    /** Writes {@code batch} (in key order) locally; called one batch at a time, and may block. */
    void write(List<Entry> batch) throws Exception;
  }

  /**
   * Streams from {@code source} the records of the keys of {@code keys} from {@code start} on
   * (tombstones included, with their versions), in key order, into {@code sink}. The future
   * completes once every record was written, or fails naming the source; either way the sink is
   * not called afterwards.
   */
  CompletableFuture<Void> pull(NodeAddress source, GainedKeys keys, byte[] start, Sink sink);
}
