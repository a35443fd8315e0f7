package dev.shale.storage.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RefCountTest {
  @Test
  void theLastReleaseSaysSoAndACountAtZeroIsNeverRevived() {
    RefCount count = new RefCount("block");
    assertThat(count.tryRetain()).isTrue();
    assertThat(count.release()).as("one of two").isFalse();
    assertThat(count.release()).as("the creator's, the last").isTrue();
    assertThat(count.tryRetain()).as("freed: not revived").isFalse();
    assertThatThrownBy(count::release).isInstanceOf(IllegalStateException.class).hasMessage("block released too often");
  }
}
