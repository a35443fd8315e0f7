package dev.shale.sim;

import java.util.List;

/**
 * How one run of the simulation ended.
 *
 * @param seed the seed that chose everything in it
 * @param trace the hash of its event trace, 16 hex digits: the same for every run of the seed
 * @param failures what the checks found, empty when every invariant held
 * @param scenario what the seed chose (nodes, clocks, faults), one line
 * @param events how many events the trace holds
 * @param virtualMillis how long the run lasted in virtual time
 * @param latestEvents the last events of the trace, oldest first, as many as were asked to be kept
 */
public record SimResult(long seed, String trace, List<String> failures, String scenario, long events, long virtualMillis,
    List<String> latestEvents) {
  public boolean held() {
    return failures.isEmpty();
  }
}
