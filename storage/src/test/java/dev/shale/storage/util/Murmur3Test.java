package dev.shale.storage.util;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.util.Murmur3.Hash128;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Murmur3Test {
  // Expected halves from Guava's Hashing.murmur3_128() (seed 0), which follows the reference
  // MurmurHash3_x64_128; the inputs cover every tail length class and whole 16-byte blocks.
  @Test
  void matchesTheReferenceImplementation() {
    assertHash("", 0x0000000000000000L, 0x0000000000000000L);
    assertHash("a", 0x85555565f6597889L, 0xe6b53a48510e895aL);
    assertHash("hello", 0xcbd8a7b341bd9b02L, 0x5b1e906a48ae1d19L);
    assertHash("hello w", 0x7552fd5459fe5513L, 0x536b5526a1675925L);
    assertHash("hello wo", 0xf9d2c3093a3e3698L, 0x45e9804b38277826L);
    assertHash("hello wor", 0x944cd9aa8b8e849dL, 0x6b2a284a57d12bbaL);
    assertHash("0123456789abcdef", 0x4be06d94cf4ad1a7L, 0x87c35b5c63a708daL);
    assertHash("0123456789abcdefg", 0x8e32612daa45f9deL, 0x0800f4c206c372eeL);
    assertHash("The quick brown fox jumps over the lazy dog", 0xe34bbc7bbc071b6cL, 0x7a433ca9c49a9347L);
  }

  @Test
  void treatsBytesAsUnsigned() {
    byte[] bytes = new byte[31];
    for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) (0xF0 + i * 7);
    assertThat(Murmur3.hash128(bytes, 0)).isEqualTo(new Hash128(0x85077e6b60c3e5d7L, 0xc31e042f6e613761L));
  }

  private static void assertHash(String input, long h1, long h2) {
    assertThat(Murmur3.hash128(input.getBytes(StandardCharsets.UTF_8), 0)).as(input).isEqualTo(new Hash128(h1, h2));
  }
}
