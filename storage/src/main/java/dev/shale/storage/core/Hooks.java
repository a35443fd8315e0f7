package dev.shale.storage.core;

/**
 * Seams for tests: gates that hold flushes and compactions back (one gate for both unless a test
 * wants them apart), and named crash points on the flush and compaction paths (a crash test's
 * child process halts at one). Production uses {@link #none}. File I/O faults come in through
 * {@link dev.shale.storage.EngineOptions#vfs()} instead.
 */
record Hooks(FlushGate flushGate, CrashPoints crashPoints, FlushGate compactionGate) {
  /** Called at each named step of a flush or compaction; production does nothing. */
  @FunctionalInterface
  interface CrashPoints {
    CrashPoints NONE = name -> {};

    void reached(String name);
  }

  /** No gate held and no crash point: production. */
  static Hooks none() {
    return withGate(new FlushGate());
  }

  /** {@code gate} holds flushes (and compactions) back when a test says so. */
  static Hooks withGate(FlushGate gate) {
    return new Hooks(gate, CrashPoints.NONE, gate);
  }

  /** {@code crashPoints} sees every named step. */
  static Hooks withCrashPoints(CrashPoints crashPoints) {
    FlushGate gate = new FlushGate();
    return new Hooks(gate, crashPoints, gate);
  }

  /** {@code gate} holds compactions (only) back when a test says so. */
  static Hooks withCompactionGate(FlushGate gate) {
    return new Hooks(new FlushGate(), CrashPoints.NONE, gate);
  }
}
