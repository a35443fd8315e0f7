package dev.shale.cluster.repair;

import java.util.ArrayList;
import java.util.List;

/**
 * What a repair did: the replica pairs (shared ranges) it compared, their leaves, the records it
 * copied from one replica to the other, the bytes that crossed the network for it, both ways
 * (trees, sub-leaf hashes, the requests' bitmaps and masks, digests, records), how long it took,
 * and the pairs it could not repair, one line each.
 */
public record RepairReport(
    int rangesCompared, long leavesCompared, long leavesDiffering, long recordsExchanged, long bytesExchanged,
    long durationMillis, List<String> failures) {

  public RepairReport {
    failures = List.copyOf(failures);
  }

  public static final RepairReport NOTHING = new RepairReport(0, 0, 0, 0, 0, 0, List.of());

  static RepairReport failed(String failure) {
    return new RepairReport(0, 0, 0, 0, 0, 0, List.of(failure));
  }

  RepairReport plus(RepairReport other) {
    List<String> all = new ArrayList<>(failures);
    all.addAll(other.failures);
    return new RepairReport(rangesCompared + other.rangesCompared, leavesCompared + other.leavesCompared,
        leavesDiffering + other.leavesDiffering, recordsExchanged + other.recordsExchanged,
        bytesExchanged + other.bytesExchanged, durationMillis + other.durationMillis, all);
  }

  RepairReport took(long millis) {
    return new RepairReport(rangesCompared, leavesCompared, leavesDiffering, recordsExchanged, bytesExchanged, millis, failures);
  }
}
