package dev.shale.load;

/** Told when a run's measured interval starts and ends (the profiler attaches in between). */
public interface MeasurementListener {
  MeasurementListener NONE = new MeasurementListener() {};

  default void measurementStarted() {}

  default void measurementEnded() {}
}
