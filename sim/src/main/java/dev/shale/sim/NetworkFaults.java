package dev.shale.sim;

import java.util.random.RandomGenerator;

/**
 * How the simulated network misbehaves while faults are on, as shares of messages and delays.
 * Every message takes a random delay up to {@code maxDelayMillis}, so messages overtake each
 * other (reordering) whatever the rates.
 *
 * @param lossRate a message lost
 * @param duplicateRate a message delivered twice, each copy with its own delay
 * @param slowRate a message delayed between half and twice {@code slowMillis}
 * @param maxDelayMillis the longest delay of a message that is not slow
 * @param slowMillis the scale of a slow message's delay
 */
record NetworkFaults(double lossRate, double duplicateRate, double slowRate, long maxDelayMillis, long slowMillis) {
  /** A healthy network: short delays, still in random order. */
  static final NetworkFaults NONE = new NetworkFaults(0, 0, 0, 5, 0);

  static NetworkFaults random(RandomGenerator random) {
    return new NetworkFaults(random.nextDouble(0.15), random.nextDouble(0.05), random.nextDouble(0.05),
        1 + random.nextInt(30), 500 + random.nextInt(1500));
  }

  long delayMillis(RandomGenerator random) {
    if (slowRate > 0 && random.nextDouble() < slowRate) return slowMillis / 2 + random.nextLong(slowMillis * 2);
    return random.nextLong(maxDelayMillis + 1);
  }
}
