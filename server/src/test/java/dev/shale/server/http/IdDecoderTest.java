package dev.shale.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IdDecoderTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "id=abc|abc",
      "id=a+b|a b",
      "id=a%2Bb|a+b",
      "id=%41%62%63|Abc",
      "id=%e2%82%ac|€",
      "id=%E2%82%AC|€",
      "x=1&id=k&y=2|k",
      "id=a=b|a=b",
      "%69d=encoded-name|encoded-name",
      "i%64=encoded-name|encoded-name",
      "id=%26%3D%25|&=%",
      "&&id=k&&|k",
  })
  void decodesTheIdParameter(String query, String expected) throws Exception {
    assertThat(decode(query)).isEqualTo(expected);
  }

  @Test
  void rawUtf8BytesInTheQueryAreTheirOwnBytes() throws Exception {
    // Netty hands over each byte of the request line as the char of the same value.
    String raw = new String("ключ".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    assertThat(decode("id=" + raw)).isEqualTo("ключ");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "x=1", "ID=k", "idx=k", "i=d"})
  void missingIdIsRefused(String query) {
    assertThatThrownBy(() -> decode(query)).hasMessageContaining("missing id");
  }

  @Test
  void nullQueryIsAMissingId() {
    assertThatThrownBy(() -> IdDecoder.decodeId(null, 1024)).hasMessageContaining("missing id");
  }

  @ParameterizedTest
  @ValueSource(strings = {"id=", "id", "id=&x=1"})
  void emptyIdIsRefused(String query) {
    assertThatThrownBy(() -> decode(query)).hasMessageContaining("empty id");
  }

  @ParameterizedTest
  @ValueSource(strings = {"id=%", "id=%4", "id=%4g", "id=%g4", "id=a%", "%i=d&id=k"})
  void malformedPercentEncodingIsRefused(String query) {
    assertThatThrownBy(() -> decode(query)).hasMessageContaining("malformed percent-encoding");
  }

  @ParameterizedTest
  @ValueSource(strings = {"id=%FF", "id=%C0%AF", "id=%ED%A0%80", "id=%E2%82", "id=%80"})
  void bytesThatAreNotUtf8AreRefused(String query) {
    // A lone 0xFF, an overlong '/', a UTF-16 surrogate, a truncated sequence, a lone continuation.
    assertThatThrownBy(() -> decode(query)).hasMessageContaining("not valid UTF-8");
  }

  @Test
  void charsBeyondOneByteAreRefused() {
    assertThatThrownBy(() -> decode("id=ключ")).hasMessageContaining("percent-encode");
  }

  @Test
  void idGivenTwiceIsRefused() {
    assertThatThrownBy(() -> decode("id=a&id=a")).hasMessageContaining("more than once");
  }

  @Test
  void lengthLimitCountsDecodedBytes() throws Exception {
    String atLimit = "%C3%A9".repeat(512); // "é" is 2 bytes: 1024 bytes from 3072 chars
    assertThat(IdDecoder.decodeId("id=" + atLimit, 1024)).hasSize(1024);
    assertThatThrownBy(() -> IdDecoder.decodeId("id=" + atLimit + "a", 1024))
        .hasMessage("id is 1025 bytes of UTF-8; the limit is 1024");
  }

  private static String decode(String query) throws InvalidRequestException {
    return new String(IdDecoder.decodeId(query, 1024), StandardCharsets.UTF_8);
  }
}
