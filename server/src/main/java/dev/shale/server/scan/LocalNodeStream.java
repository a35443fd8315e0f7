package dev.shale.server.scan;

import dev.shale.cluster.NodeAddress;
import dev.shale.server.EngineBatches;
import dev.shale.storage.Entry;
import io.netty.util.concurrent.EventExecutor;

/**
 * The coordinator's own records in a cluster scan, read through its engine (tombstones
 * included) in batches on the scan threads: one batch buffered at a time.
 */
final class LocalNodeStream extends NodeStream {
  private final EngineBatches batches;
  private boolean pulling;

  LocalNodeStream(NodeAddress self, ScanRange range, EngineBatches.Source open, ScanThreads threads, EventExecutor loop) {
    super(self, range);
    this.batches = new EngineBatches(open, threads, threads.views(), loop);
  }

  @Override
  void begin() {
    opened(); // the engine is here: nothing to reach
  }

  @Override
  void demand() {
    if (pulling || ended() || !isOpen() || !isEmpty()) return;
    pulling = true;
    batches.request(this::onBatch);
  }

  private void onBatch(EngineBatches.Batch batch) {
    pulling = false;
    if (!isOpen()) return;
    if (batch.failure() != null) {
      fail("this node's scan failed: " + batch.failure());
      return;
    }
    for (Entry entry : batch.entries()) {
      if (!accept(entry)) return;
    }
    if (batch.last()) end();
    listener().readable(this);
  }

  @Override
  void park() {
    if (!pulling) batches.park();
  }

  @Override
  void release() {
    batches.close();
  }
}
