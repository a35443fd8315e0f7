package dev.shale.load;

/** One line of a report: a workload at a connection count and value size. */
record Scenario(String name, Workload workload, int connections, int valueSizeBytes, LoadSpec.KeyDistribution distribution) {
  /** A file-name-safe id, e.g. put-c64-1024b. */
  String id() {
    return (workload.cliName() + (distribution == LoadSpec.KeyDistribution.ZIPF ? "-zipf" : "") + "-c" + connections
        + "-" + valueSizeBytes + "b");
  }
}
