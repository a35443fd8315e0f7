package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** How the offline tools print keys and values: one line each, never two alike, and JSON that loses nothing. */
class PrintableBytesTest {
  @Test
  void textEscapesWhatWouldSpanLinesOrHideBytes() {
    assertThat(PrintableBytes.text(utf8("plain é"), PrintableBytes.ALL)).isEqualTo("plain é");
    assertThat(PrintableBytes.text(utf8("a\\b\nc\td\u0001"), PrintableBytes.ALL)).isEqualTo("a\\\\b\\nc\\td\\x01");
    assertThat(PrintableBytes.text(new byte[] {'x', (byte) 0xC3}, PrintableBytes.ALL)).as("not UTF-8").isEqualTo("x\\xc3");
  }

  @Test
  void aCutValueSaysHowLongItWasAndNeverSplitsACharacter() {
    assertThat(PrintableBytes.text(utf8("abcdef"), 3)).isEqualTo("abc...(6 bytes)");
    assertThat(PrintableBytes.text(utf8("abéd"), 3)).as("é is two bytes: cut before it").isEqualTo("ab...(5 bytes)");
    assertThat(PrintableBytes.text(utf8("abc"), 0)).isEqualTo("...(3 bytes)");
  }

  @Test
  void jsonIsTextForUtf8AndBase64OtherwiseWithTheLengthWhenCut() {
    assertThat(PrintableBytes.json("key", utf8("a\"b"), PrintableBytes.ALL)).isEqualTo("\"key\": \"a\\\"b\"");
    assertThat(PrintableBytes.json("value", new byte[] {(byte) 0xFF, 0}, PrintableBytes.ALL))
        .isEqualTo("\"valueBase64\": \"/wA=\"");
    assertThat(PrintableBytes.json("value", utf8("abcdef"), 2)).isEqualTo("\"value\": \"ab\", \"valueLength\": 6");
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
