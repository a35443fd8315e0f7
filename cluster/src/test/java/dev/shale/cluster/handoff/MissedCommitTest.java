package dev.shale.cluster.handoff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Nodes;
import dev.shale.cluster.Topology;
import dev.shale.cluster.membership.StaticMembership;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that was down when a change it was following ended: at its next start, with no change
 * pending in the map, it runs the cleanup it missed (docs/design.md, "Handoff", "Cleanup"), and
 * only when the map is the one the change ended with.
 */
class MissedCommitTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final int KEYS = 300;

  @TempDir Path tmp;
  private final List<NodeAddress> nodes = Nodes.loopback(4);
  private final NodeAddress self = nodes.getFirst();
  // A fourth node joins three: the first node loses to it about a quarter of the keys.
  private final PlacementChange join = PlacementChange.between(nodes.subList(0, 3), nodes, 3);
  private final List<byte[]> keys = new ArrayList<>();
  private final AtomicBoolean received = new AtomicBoolean();
  private Engine engine;
  private Handoff restarted;

  @BeforeEach
  void aNodeHeardTheChangeStartAndStoppedBeforeItsEnd() {
    engine = Engine.open(tmp.resolve("engine"), EngineOptions.defaults());
    for (int i = 0; i < KEYS; i++) {
      byte[] key = String.format("key-%04d", i).getBytes(StandardCharsets.UTF_8);
      engine.write(key, ("value-" + i).getBytes(StandardCharsets.UTF_8), 1000 + i);
      keys.add(key);
    }
    try (Handoff before = handoff()) {
      before.changeStarted(join);
      Await.until("the first node holds what it gains (nothing)", DEADLINE, received::get);
    }
    assertThat(tmp.resolve("handoff").resolve("progress")).exists();
    received.set(false);
    restarted = handoff();
  }

  @AfterEach
  void close() {
    if (restarted != null) restarted.close();
    if (engine != null) engine.close();
  }

  @Test
  void aChangeThatEndedWithTheMapsMembersIsCommittedAtTheNextStart() {
    new MapChanges().attach(self, StaticMembership.of(new Topology(nodes, self)), restarted);
    Await.until("the cleanup ran", DEADLINE, () -> !Files.exists(tmp.resolve("handoff").resolve("progress")));

    int dropped = 0;
    for (byte[] key : keys) {
      boolean lost = join.rangeOf(key).losing().contains(self);
      assertThat(engine.get(key)).as("key %s", new String(key, StandardCharsets.UTF_8)).matches(e -> lost == (e == null));
      if (lost) dropped++;
    }
    assertThat(dropped).isBetween(KEYS / 10, KEYS / 2);
  }

  @Test
  void aMapOtherThanTheOneTheChangeEndedWithLeavesTheCopiesAlone() {
    // The map the node serves with is older than the change (its stored map was not written).
    new MapChanges().attach(self, StaticMembership.of(new Topology(nodes.subList(0, 3), self)), restarted);
    // The handoff's thread runs its work in order: once a later change's pull is done, so is the check.
    restarted.changeStarted(join);
    Await.until("the handoff's thread ran the check", DEADLINE, received::get);

    for (byte[] key : keys) assertThat(engine.get(key)).as("key %s", new String(key, StandardCharsets.UTF_8)).isNotNull();
  }

  private Handoff handoff() {
    PullSource nothing = (source, gained, start, sink) -> CompletableFuture.completedFuture(null);
    return new Handoff(self, null, engine, nothing, tmp.resolve("handoff"), Handoff.DEFAULT_BYTES_PER_SECOND,
        node -> received.set(true), Env.real());
  }
}
