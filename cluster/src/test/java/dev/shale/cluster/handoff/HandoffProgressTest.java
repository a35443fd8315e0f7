package dev.shale.cluster.handoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Nodes;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HandoffProgressTest {
  private final List<NodeAddress> five = Nodes.loopback(5);
  private final PlacementChange join = PlacementChange.between(five.subList(0, 4), five, 3);
  private final List<String> gained = namesOf(join);

  @TempDir Path dir;

  @Test
  void aReopenedProgressResumesEachRangeWhereItWas() throws IOException {
    String first = gained.getFirst();
    HandoffProgress progress = HandoffProgress.open(Vfs.real(), dir, join, gained);
    assertThat(progress.ranges()).hasSize(gained.size()).allMatch(r -> !r.done() && r.records() == 0 && r.lastKey() == null);
    progress.advance(first, bytes("k1"), 10, 100);
    progress.advance(first, bytes("k2"), 5, 50);

    HandoffProgress reopened = HandoffProgress.open(Vfs.real(), dir, join, gained);
    RangeProgress range = reopened.of(first);
    assertThat(range.records()).isEqualTo(15);
    assertThat(range.bytes()).isEqualTo(150);
    assertThat(range.lastKey()).isEqualTo(bytes("k2"));
    assertThat(reopened.allDone()).isFalse();
    for (String name : gained) reopened.finish(name);
    assertThat(HandoffProgress.open(Vfs.real(), dir, join, gained).allDone()).isTrue();
  }

  @Test
  void thePartsOfAFailedOverPullAreKeptAndStartWhereTheReplacedNodeStopped() throws IOException {
    HandoffProgress progress = HandoffProgress.open(Vfs.real(), dir, join, gained);
    progress.advance(gained.getFirst(), bytes("k5"), 5, 50);
    progress.addFrom(gained.getFirst() + "@127.0.0.1:9", bytes("k5"));
    progress.addFrom(gained.getFirst() + "@127.0.0.1:9", bytes("other")); // there already: unchanged

    HandoffProgress reopened = HandoffProgress.open(Vfs.real(), dir, join, gained);
    assertThat(reopened.has(gained.getFirst() + "@127.0.0.1:9")).isTrue();
    RangeProgress part = reopened.of(gained.getFirst() + "@127.0.0.1:9");
    assertThat(part.lastKey()).isEqualTo(bytes("k5"));
    assertThat(part.records()).isZero();
    assertThat(reopened.ranges()).hasSize(gained.size() + 1);
  }

  @Test
  void anotherChangesProgressIsReplacedNotResumed() throws IOException {
    HandoffProgress.open(Vfs.real(), dir, join, gained).advance(gained.getFirst(), bytes("k"), 1, 1);
    PlacementChange other = PlacementChange.between(five.subList(0, 4), five, 2);
    HandoffProgress progress = HandoffProgress.open(Vfs.real(), dir, other, namesOf(other));
    assertThat(progress.ranges()).allMatch(r -> r.records() == 0);
    assertThat(Files.readString(dir.resolve("progress"))).startsWith(HandoffProgress.HEADER + "\nchange 2 ");
  }

  @Test
  void aFileThatDoesNotParseIsAnErrorNamingTheFileAndLine() throws IOException {
    HandoffProgress.open(Vfs.real(), dir, join, gained);
    List<String> lines = Files.readAllLines(dir.resolve("progress"));
    Files.writeString(dir.resolve("progress"), lines.get(0) + "\n" + lines.get(1) + "\nrange a,b open x 0 -\n");
    assertThatThrownBy(() -> HandoffProgress.open(Vfs.real(), dir, join, gained)).isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining(dir.resolve("progress") + " line 3");
    Files.writeString(dir.resolve("progress"), "something else\n");
    assertThatThrownBy(() -> HandoffProgress.open(Vfs.real(), dir, join, gained)).hasMessageContaining("line 1: not a handoff progress file");
  }

  private List<String> namesOf(PlacementChange change) {
    return change.pullsOf(five.get(4)).stream().map(PullUnit::name).toList();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
