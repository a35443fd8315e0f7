package dev.shale.server.metrics;

/** The classic histogram buckets of the request durations. */
final class Buckets {
  private Buckets() {}

  /**
   * Upper bounds in seconds, from 100 µs (a PUT to the page cache, answered on the event loop)
   * to 10 s (a stalled write, a slow replica near its timeout), about 2.5x apart. Fixed classic
   * buckets: an observation is a binary search and two adds, with no allocation.
   */
  static final double[] REQUEST_SECONDS = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
  };

  static double seconds(long nanos) {
    return nanos / 1e9;
  }
}
