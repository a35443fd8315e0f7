package dev.shale.cluster.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.Hint;
import dev.shale.cluster.HintLimits;
import dev.shale.cluster.HintStore;
import dev.shale.cluster.HintedHandoff;
import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Env;
import dev.shale.storage.SyncMode;
import dev.shale.storage.Entry;
import dev.shale.storage.Versions;
import dev.shale.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A coordinator's missed writes go to the hint store, and from there through the handoff's sender. */
@Timeout(120)
class HintedWritesTest {
  private static final NodeAddress PEER = new NodeAddress("127.0.0.1", 7002);

  @TempDir Path dir;

  @Test
  void aMissedWriteIsKeptPendingAndDeliveredOnceTheHandoffRuns() {
    List<Hint> delivered = new CopyOnWriteArrayList<>();
    HintStore store = HintStore.open(dir, HintLimits.DEFAULT, SyncMode.INTERVAL, Env.real());
    HintedHandoff handoff = new HintedHandoff(store, hint -> {
      delivered.add(hint);
      return CompletableFuture.completedFuture(true);
    }, HintLimits.DEFAULT);
    try {
      HintedWrites missed = new HintedWrites(store);
      long version = Versions.of(System.currentTimeMillis(), 0);
      byte[] key = "k".getBytes(StandardCharsets.UTF_8);
      missed.replicaAnswered(PEER); // before delivery runs: nothing to cut short

      assertThat(missed.missed(PEER, key, "v".getBytes(StandardCharsets.UTF_8), version, Entry.NEVER)).isTrue();
      assertThat(missed.pending()).isEqualTo(1);
      assertThat(missed.pendingBytes()).isPositive();

      missed.deliverWith(handoff);
      Await.until("the hint to be delivered and removed", Duration.ofSeconds(60),
          () -> delivered.size() == 1 && missed.pending() == 0);
      assertThat(delivered.getFirst().target()).isEqualTo(PEER);
      assertThat(delivered.getFirst().version()).isEqualTo(version);
      assertThatThrownBy(() -> missed.deliverWith(handoff)).isInstanceOf(IllegalStateException.class);
    } finally {
      handoff.close();
    }
  }
}
