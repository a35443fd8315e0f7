package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.EngineOptions;
import org.junit.jupiter.api.Test;

class HintLimitsTest {
  @Test
  void theDefaultsFitTheDataStoresDefaultTombstoneGrace() {
    assertThatCode(() -> HintLimits.DEFAULT.checkTombstoneGrace(EngineOptions.defaults().tombstoneGraceMillis()))
        .doesNotThrowAnyException();
  }

  @Test
  void aGracePeriodNotLongerThanTheHintAgePlusSkewIsRefused() {
    HintLimits limits = new HintLimits(1 << 20, 60_000, 10);
    long needed = 60_000 + HintedHandoff.DELIVERY_TIMEOUT_MILLIS + HintLimits.MAX_CLOCK_SKEW_MILLIS;
    assertThatThrownBy(() -> limits.checkTombstoneGrace(needed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tombstone grace period (" + needed + " ms)")
        .hasMessageContaining("hint age limit (60000 ms)")
        .hasMessageContaining("clock skew between nodes (60000 ms, the version-skew bound)");
    assertThatCode(() -> limits.checkTombstoneGrace(needed + 1)).doesNotThrowAnyException();
  }

  @Test
  void limitsOutOfRangeAreRefused() {
    assertThatThrownBy(() -> new HintLimits(0, 1, 1)).hasMessageContaining("maxBytes");
    assertThatThrownBy(() -> new HintLimits(1, 0, 1)).hasMessageContaining("maxAgeMillis");
    assertThatThrownBy(() -> new HintLimits(1, 1, 0)).hasMessageContaining("deliveriesPerSecond");
  }
}
