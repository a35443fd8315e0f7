package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What {@code shale nodes repair} prints of a node's repair report. */
class NodesRepairCommandTest {
  private static final String REPORT = "{\"rangesCompared\": 3, \"leavesCompared\": 196608, \"leavesDiffering\": 9270, "
      + "\"recordsExchanged\": 10000, \"bytesExchanged\": 6912340, \"durationMillis\": 8123, \"failures\": [%s]}";

  @Test
  void theSummarySaysWhatWasComparedAndExchanged() {
    assertThat(NodesRepairCommand.summary(REPORT.formatted(""))).isEqualTo(
        "repaired 3 ranges (replica pairs): 9270 of 196608 leaves differed; 10000 records, 6912340 bytes exchanged in 8.1 s");
  }

  @Test
  void failuresAreTheReportsStringsUnquoted() {
    assertThat(NodesRepairCommand.failures(REPORT.formatted(""))).isEmpty();
    assertThat(NodesRepairCommand.failures(REPORT.formatted("\"a and b: cannot connect\", \"c: said \\\"no\\\" [1]\"")))
        .containsExactly("a and b: cannot connect", "c: said \"no\" [1]");
  }

  @Test
  void anAnswerThatIsNoReportFailsNamingWhatIsMissing() {
    assertThatThrownBy(() -> NodesRepairCommand.summary("{}")).isInstanceOf(AdminCallException.class).hasMessageContaining("rangesCompared");
    assertThatThrownBy(() -> NodesRepairCommand.failures("{}")).isInstanceOf(AdminCallException.class).hasMessageContaining("failures");
  }
}
