package dev.shale.storage.core;

/** What one {@link MetamorphicRun} went through, for its summary line: a run that never flushed tested less than it seems. */
final class MetamorphicRunStats {
  long flushes;
  long compactions;
  int reopens;
  int crashes;
  long writesLostInCrashes;
  int checkpoints;
  long lentReads;
  long memoryReads;
  long batchesTaken;

  @Override
  public String toString() {
    return flushes + " flushes, " + compactions + " compactions, " + reopens + " reopens, " + crashes
        + " crashes (" + writesLostInCrashes + " unsynced writes lost and written again), " + checkpoints
        + " checkpoints, " + lentReads + " lent reads, " + memoryReads + " gets answered from memory too, "
        + batchesTaken + " batches taken by tryWriteAll";
  }
}
