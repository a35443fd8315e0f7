package dev.shale.cluster.handoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Nodes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HandoffProgressTest {
  private final List<NodeAddress> five = Nodes.loopback(5);
  private final PlacementChange join = PlacementChange.between(five.subList(0, 4), five, 3);
  private final Set<Set<NodeAddress>> gained = join.sourcesOfRangesGainedBy(five.get(4));

  @TempDir Path dir;

  @Test
  void aReopenedProgressResumesEachRangeWhereItWas() throws IOException {
    Set<NodeAddress> first = gained.iterator().next();
    HandoffProgress progress = HandoffProgress.open(dir, join, gained);
    assertThat(progress.ranges()).hasSize(gained.size()).allMatch(r -> !r.done() && r.records() == 0 && r.lastKey() == null);
    progress.advance(first, bytes("k1"), 10, 100);
    progress.advance(first, bytes("k2"), 5, 50);

    HandoffProgress reopened = HandoffProgress.open(dir, join, gained);
    RangeProgress range = reopened.of(first);
    assertThat(range.records()).isEqualTo(15);
    assertThat(range.bytes()).isEqualTo(150);
    assertThat(range.lastKey()).isEqualTo(bytes("k2"));
    assertThat(reopened.allDone()).isFalse();
    for (Set<NodeAddress> sources : gained) reopened.finish(sources);
    assertThat(HandoffProgress.open(dir, join, gained).allDone()).isTrue();
  }

  @Test
  void anotherChangesProgressIsReplacedNotResumed() throws IOException {
    Set<NodeAddress> first = gained.iterator().next();
    HandoffProgress.open(dir, join, gained).advance(first, bytes("k"), 1, 1);
    PlacementChange other = PlacementChange.between(five.subList(0, 4), five, 2);
    Set<Set<NodeAddress>> otherRanges = other.sourcesOfRangesGainedBy(five.get(4));
    HandoffProgress progress = HandoffProgress.open(dir, other, otherRanges);
    assertThat(progress.ranges()).allMatch(r -> r.records() == 0);
    assertThat(Files.readString(dir.resolve("progress"))).startsWith(HandoffProgress.HEADER + "\nchange 2 ");
  }

  @Test
  void aFileThatDoesNotParseIsAnErrorNamingTheFileAndLine() throws IOException {
    HandoffProgress.open(dir, join, gained);
    List<String> lines = Files.readAllLines(dir.resolve("progress"));
    Files.writeString(dir.resolve("progress"), lines.get(0) + "\n" + lines.get(1) + "\nrange a,b open x 0 -\n");
    assertThatThrownBy(() -> HandoffProgress.open(dir, join, gained)).isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining(dir.resolve("progress") + " line 3");
    Files.writeString(dir.resolve("progress"), "something else\n");
    assertThatThrownBy(() -> HandoffProgress.open(dir, join, gained)).hasMessageContaining("line 1: not a handoff progress file");
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
