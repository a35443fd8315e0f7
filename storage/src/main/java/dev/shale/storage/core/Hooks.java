package dev.shale.storage.core;

import dev.shale.storage.io.ChannelOpener;

/**
 * Seams for tests: how log and manifest files are opened (to inject I/O failures), gates that
 * hold flushes and compactions back (one gate for both unless a test wants them apart), and
 * named crash points on the flush and compaction paths (a crash test's child process halts at
 * one). Production uses {@link #none}.
 */
record Hooks(ChannelOpener opener, FlushGate flushGate, CrashPoints crashPoints,
    FlushGate compactionGate) {
  /** Called at each named step of a flush or compaction; production does nothing. */
  @FunctionalInterface
  interface CrashPoints {
    CrashPoints NONE = name -> {};

    void reached(String name);
  }

  Hooks(ChannelOpener opener, FlushGate flushGate) {
    this(opener, flushGate, CrashPoints.NONE, flushGate);
  }

  /** No injected faults; a gate of its own that nothing holds. */
  static Hooks none() {
    return new Hooks(ChannelOpener.DEFAULT, new FlushGate());
  }

  /** No injected faults; {@code gate} holds flushes back when a test says so. */
  static Hooks withGate(FlushGate gate) {
    return new Hooks(ChannelOpener.DEFAULT, gate);
  }

  /** No injected faults; {@code crashPoints} sees every named step. */
  static Hooks withCrashPoints(CrashPoints crashPoints) {
    FlushGate gate = new FlushGate();
    return new Hooks(ChannelOpener.DEFAULT, gate, crashPoints, gate);
  }

  /** No injected faults; {@code gate} holds compactions (only) back when a test says so. */
  static Hooks withCompactionGate(FlushGate gate) {
    return new Hooks(ChannelOpener.DEFAULT, new FlushGate(), CrashPoints.NONE, gate);
  }
}
