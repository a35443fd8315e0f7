package dev.shale.server;

import dev.shale.cluster.repair.RepairReport;
import java.util.StringJoiner;

/**
 * The JSON of {@code POST /v0/admin/repair}'s answer: what the repair compared (replica pairs'
 * ranges, their leaves), what it exchanged (records copied, bytes over the network), how long it
 * took, and the pairs it could not repair ({@code failures}, one line each; empty when all were).
 */
public final class RepairBody {
  private RepairBody() {}

  public static String of(RepairReport report) {
    StringJoiner failures = new StringJoiner(", ", "[", "]");
    for (String failure : report.failures()) failures.add(StatusBody.quote(failure));
    return "{\"rangesCompared\": " + report.rangesCompared()
        + ", \"leavesCompared\": " + report.leavesCompared()
        + ", \"leavesDiffering\": " + report.leavesDiffering()
        + ", \"recordsExchanged\": " + report.recordsExchanged()
        + ", \"bytesExchanged\": " + report.bytesExchanged()
        + ", \"durationMillis\": " + report.durationMillis()
        + ", \"failures\": " + failures + "}";
  }
}
