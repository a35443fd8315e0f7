package dev.shale.load;

import java.util.Locale;

/** One line of a report: a workload at a connection count and value size. */
record Scenario(String name, Workload workload, int connections, int valueSizeBytes, LoadSpec.KeyDistribution distribution) {
  /**
   * A file-name-safe id from the name, which is unique in a report (two scenarios may share a
   * workload and differ only in the store they run on), e.g. {@code put-100-b-64-conn}.
   */
  String id() {
    return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
  }
}
