package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** How {@code shale scan} shows bytes: printable UTF-8 as is, everything else escaped, one line always. */
class EscapedBytesTest {
  @Test
  void printableUtf8IsShownAsItIs() {
    assertThat(EscapedBytes.of(utf8("user:1 Grüße, 東京 🙂"))).isEqualTo("user:1 Grüße, 東京 🙂");
  }

  @Test
  void separatorsAndTheBackslashAreEscaped() {
    assertThat(EscapedBytes.of(utf8("a\tb\nc\rd\\e"))).isEqualTo("a\\tb\\nc\\rd\\\\e");
  }

  @Test
  void controlAndInvisibleCharactersAreEscapedByteByByte() {
    assertThat(EscapedBytes.of(utf8("\u0000\u001b[0m\u007f"))).isEqualTo("\\x00\\x1b[0m\\x7f");
    assertThat(EscapedBytes.of(utf8("a\u2028b\u202ec"))).isEqualTo("a\\xe2\\x80\\xa8b\\xe2\\x80\\xaec");
  }

  @Test
  void bytesThatAreNotUtf8AreEscapedOneByOne() {
    assertThat(EscapedBytes.of(new byte[] {(byte) 0xff, 'x', (byte) 0xc0, (byte) 0x80})).isEqualTo("\\xffx\\xc0\\x80");
    assertThat(EscapedBytes.of(new byte[] {'a', (byte) 0xe2, (byte) 0x82})).isEqualTo("a\\xe2\\x82"); // cut short
    assertThat(EscapedBytes.of(new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80})).isEqualTo("\\xed\\xa0\\x80"); // a surrogate
  }

  @Test
  void aLineNeverHoldsATabOrANewline() {
    byte[] every = new byte[256];
    for (int i = 0; i < every.length; i++) every[i] = (byte) i;
    assertThat(EscapedBytes.of(every)).doesNotContain("\t", "\n", "\r");
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
