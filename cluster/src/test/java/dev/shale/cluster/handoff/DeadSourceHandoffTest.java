package dev.shale.cluster.handoff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Nodes;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import dev.shale.testkit.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A removal of a dead member (docs/design.md, "Handoff"): the node that gains its keys pulls them
 * from the other replicas and never asks the dead one, with a real engine and sources that stream
 * what each node holds.
 */
class DeadSourceHandoffTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  @TempDir Path tmp;
  private final List<NodeAddress> nodes = Nodes.loopback(4);
  // Every range the receiver gains replaces it: a live one would be pulled from first.
  private final NodeAddress dead = nodes.get(0);
  private final NodeAddress self = nodes.get(1);
  private final List<NodeAddress> asked = new CopyOnWriteArrayList<>();
  private final AtomicBoolean received = new AtomicBoolean();
  private Engine engine;
  private Handoff handoff;

  @AfterEach
  void close() {
    if (handoff != null) handoff.close();
    if (engine != null) engine.close();
  }

  @Test
  void theGainedKeysComeFromTheLiveReplicasNeverFromTheDeadOne() {
    PlacementChange change = PlacementChange.between(nodes, nodes.subList(1, 4), 3).withDown(Set.of(dead));
    Map<String, Entry> written = records(change, 400);
    start(change, written);
    Await.until("the ranges " + self + " gains are pulled", DEADLINE, received::get);

    assertThat(asked).isNotEmpty().doesNotContain(dead);
    int gained = 0;
    for (Entry entry : written.values()) {
      if (!change.rangeOf(entry.key()).gaining().contains(self)) continue;
      gained++;
      Entry here = engine.get(entry.key());
      assertThat(here).as("key %s", new String(entry.key(), StandardCharsets.UTF_8)).isNotNull();
      assertThat(here.version()).isEqualTo(entry.version());
      assertThat(here.value()).isEqualTo(entry.value()); // a tombstone stays one
    }
    assertThat(gained).as("keys the dead member replicated and this node takes over").isGreaterThan(50);
  }

  @Test
  void aRangeWhoseOnlyCopyWasOnTheDeadMemberIsDoneEmptyRatherThanRetriedForEver() {
    // One copy per key: the dead member's keys have no other replica left to pull them from.
    PlacementChange change = PlacementChange.between(nodes, nodes.subList(1, 4), 1).withDown(Set.of(dead));
    start(change, records(change, 400));
    Await.until("the removal can finish", DEADLINE, received::get);

    assertThat(asked).isEmpty();
    assertThat(handoff.progress()).isNotEmpty().allSatisfy(range -> {
      assertThat(range.done()).isTrue();
      assertThat(range.records()).isZero();
    });
  }

  private void start(PlacementChange change, Map<String, Entry> written) {
    engine = Engine.open(tmp.resolve("engine"), EngineOptions.defaults());
    handoff = new Handoff(self, null, engine, source(change, written), tmp.resolve("handoff"), Handoff.DEFAULT_BYTES_PER_SECOND,
        node -> received.set(node.equals(self)), Env.real());
    handoff.changeStarted(change);
  }

  /** {@code count} keys, a fifth of them deleted, each with a version of its own. */
  private static Map<String, Entry> records(PlacementChange change, int count) {
    Map<String, Entry> written = new HashMap<>();
    for (int i = 0; i < count; i++) {
      String key = String.format("key-%04d", i);
      byte[] value = i % 5 == 0 ? null : ("value-" + i).getBytes(StandardCharsets.UTF_8);
      written.put(key, new Entry(key.getBytes(StandardCharsets.UTF_8), 1000 + i, value));
    }
    return written;
  }

  /**
   * Sources that stream, in key order from {@code start} on, the records of {@code keys} that the
   * node holds: those whose replicas before the change include it; the dead one refuses, as a
   * node that is down does. Records every node asked.
   */
  private PullSource source(PlacementChange change, Map<String, Entry> written) {
    return (source, keys, start, sink) -> {
      asked.add(source);
      if (source.equals(dead)) return CompletableFuture.failedFuture(new IOException("connection refused"));
      List<Entry> batch = new ArrayList<>();
      written.values().stream()
          .filter(e -> change.replicasBefore(e.key()).contains(source) && keys.contains(e.key()))
          .filter(e -> Arrays.compareUnsigned(e.key(), start) >= 0)
          .sorted((x, y) -> Arrays.compareUnsigned(x.key(), y.key()))
          .forEach(batch::add);
      try {
        if (!batch.isEmpty()) sink.write(batch);
        return CompletableFuture.completedFuture(null);
      } catch (Exception e) {
        return CompletableFuture.failedFuture(e);
      }
    };
  }
}
