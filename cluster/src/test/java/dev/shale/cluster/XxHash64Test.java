package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class XxHash64Test {

  @Test
  void matchesTheReferenceValues() {
    // Published XXH64 values (seed 0) of the reference implementation.
    assertThat(XxHash64.hash(new byte[0], 0)).isEqualTo(0xEF46DB3751D8E999L);
    assertThat(XxHash64.hash(bytes("a"), 0)).isEqualTo(0xD24EC4F1A98C6E5BL);
    assertThat(XxHash64.hash(bytes("abc"), 0)).isEqualTo(0x44BC2CF5AD770999L);
  }

  @Test
  void everyLengthPathGivesDistinctValues() {
    // Lengths 0..100 cross every branch: the 32-byte stripes, 8-byte words, 4-byte word, bytes.
    java.util.Set<Long> seen = new java.util.HashSet<>();
    byte[] data = new byte[100];
    for (int i = 0; i < data.length; i++) data[i] = (byte) i;
    for (int length = 0; length <= data.length; length++) {
      assertThat(seen.add(XxHash64.hash(java.util.Arrays.copyOf(data, length), 0))).as("length %d", length).isTrue();
    }
  }

  @Test
  void seedChangesTheHash() {
    assertThat(XxHash64.hash(bytes("key"), 1)).isNotEqualTo(XxHash64.hash(bytes("key"), 0));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
