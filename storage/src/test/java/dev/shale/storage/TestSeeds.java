package dev.shale.storage;

/**
 * The seed of a randomized test: {@code -Dshale.seed=<n>} replays a run, otherwise a fresh one.
 * The seed is printed so that a failure can be replayed.
 */
public final class TestSeeds {
  private TestSeeds() {}

  public static long seed(String testName) {
    Long fixed = Long.getLong("shale.seed");
    long seed = fixed != null ? fixed : System.nanoTime() ^ Thread.currentThread().threadId();
    System.out.println(testName + ": seed " + seed + " (replay with -Dshale.seed=" + seed + ")");
    return seed;
  }
}
