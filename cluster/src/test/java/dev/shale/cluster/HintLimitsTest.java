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
    assertThatThrownBy(() -> limits.checkTombstoneGrace(60_000 + InternalAuth.MAX_SKEW_MILLIS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tombstone grace period (90000 ms)")
        .hasMessageContaining("hint age limit (60000 ms)");
    assertThatCode(() -> limits.checkTombstoneGrace(60_001 + InternalAuth.MAX_SKEW_MILLIS)).doesNotThrowAnyException();
  }

  @Test
  void limitsOutOfRangeAreRefused() {
    assertThatThrownBy(() -> new HintLimits(0, 1, 1)).hasMessageContaining("maxBytes");
    assertThatThrownBy(() -> new HintLimits(1, 0, 1)).hasMessageContaining("maxAgeMillis");
    assertThatThrownBy(() -> new HintLimits(1, 1, 0)).hasMessageContaining("deliveriesPerSecond");
  }
}
