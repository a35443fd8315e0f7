package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

class ByteSizeConverterTest {

  @ParameterizedTest
  @CsvSource({"0,0", "65536,65536", "64k,65536", "64K,65536", "16m,16777216", "1g,1073741824", "3G,3221225472"})
  void parsesBytesAndBinarySuffixes(String text, long bytes) {
    assertThat(ByteSizeConverter.parse(text)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "m", "16 MB", "16mb", "-1", "1.5m", "1t", "99999999999999999999", "9999999999999g"})
  void refusesAnythingElse(String text) {
    assertThatThrownBy(() -> ByteSizeConverter.parse(text))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("invalid size '" + text + "'");
  }
}
