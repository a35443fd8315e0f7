package dev.shale.storage.core;

import dev.shale.storage.io.ChannelOpener;

/**
 * Seams for tests: how log and manifest files are opened (to inject I/O failures) and a gate
 * that holds flushes back. Production uses {@link #none}.
 */
record Hooks(ChannelOpener opener, FlushGate flushGate) {
  /** No injected faults; a gate of its own that nothing holds. */
  static Hooks none() {
    return new Hooks(ChannelOpener.DEFAULT, new FlushGate());
  }

  /** No injected faults; {@code gate} holds flushes back when a test says so. */
  static Hooks withGate(FlushGate gate) {
    return new Hooks(ChannelOpener.DEFAULT, gate);
  }
}
