package dev.shale.sim;

/**
 * One node's wall clock in virtual time: off by a fixed skew, running fast or slow by a drift,
 * and stepped back once, at a chosen moment, by a chosen amount (as an NTP correction may).
 * Monotonic time is not this: it is the virtual clock itself, for every node.
 *
 * @param epochMillis the wall time virtual time 0 stands for
 * @param skewMillis how far ahead (negative: behind) the clock starts
 * @param driftPpm how many microseconds per virtual second it gains (negative: loses)
 * @param stepAtMillis the virtual moment it steps back (Long.MAX_VALUE: never)
 * @param stepBackMillis by how much
 */
record NodeClock(long epochMillis, long skewMillis, long driftPpm, long stepAtMillis, long stepBackMillis) {
  long wallMillis(long virtualMillis) {
    long drift = virtualMillis * driftPpm / 1_000_000;
    long step = virtualMillis >= stepAtMillis ? stepBackMillis : 0;
    return epochMillis + virtualMillis + skewMillis + drift - step;
  }

  @Override
  public String toString() {
    return "skew " + skewMillis + " ms, drift " + driftPpm + " ppm"
        + (stepAtMillis == Long.MAX_VALUE ? "" : ", back " + stepBackMillis + " ms at " + stepAtMillis + " ms");
  }
}
