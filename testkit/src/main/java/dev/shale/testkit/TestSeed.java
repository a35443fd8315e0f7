package dev.shale.testkit;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Seeds for randomized tests: {@code -Dshale.seed=N} replays a run; otherwise a fresh seed is
 * drawn. Either way the seed is printed, so any failure can be replayed.
 */
public final class TestSeed {
  private TestSeed() {}

  /** The seed for the test named {@code testName}, printed to standard output. */
  public static long forTest(String testName) {
    String given = System.getProperty("shale.seed");
    long seed = given != null ? Long.parseLong(given.trim()) : ThreadLocalRandom.current().nextLong();
    System.out.println(testName + ": seed " + seed + " (replay with -Dshale.seed=" + seed + ")");
    return seed;
  }
}
