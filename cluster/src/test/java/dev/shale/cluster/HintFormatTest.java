package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.StorageException;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The bytes of docs/format.md, "Hints", including its worked example. */
class HintFormatTest {
  static final HexFormat HEX = HexFormat.ofDelimiter(" ");
  static final NodeAddress NODE = new NodeAddress("127.0.0.1", 8081);

  @Test
  void theWorkedExampleOfTheFormatDocument() {
    byte[] key = HintFormat.key(HintFormat.prefix(NODE), new byte[] {'k'});
    assertThat(HEX.formatHex(key)).isEqualTo("0e 31 32 37 2e 30 2e 30 2e 31 3a 38 30 38 31 6b");
    assertThat(HEX.formatHex(HintFormat.value(new byte[] {'v', '1'}))).isEqualTo("00 76 31");
    assertThat(HEX.formatHex(HintFormat.value(null))).isEqualTo("01");
    assertThat(HintFormat.sizeBytes(key, HintFormat.value(new byte[] {'v', '1'}))).isEqualTo(16 + 3 + 8);
  }

  @Test
  void recordsDecodeBackToTheirHints() {
    for (NodeAddress target : new NodeAddress[] {NODE, new NodeAddress("::1", 9000), new NodeAddress("db-7.example", 80)}) {
      byte[] key = HintFormat.key(HintFormat.prefix(target), new byte[] {0, (byte) 0xff});
      Hint value = HintFormat.decode(new Entry(key, 42, HintFormat.value(new byte[] {7})));
      assertThat(value).isEqualTo(new Hint(target, new byte[] {0, (byte) 0xff}, new byte[] {7}, 42));
      Hint tombstone = HintFormat.decode(new Entry(key, 43, HintFormat.value(null)));
      assertThat(tombstone).isEqualTo(new Hint(target, new byte[] {0, (byte) 0xff}, null, 43));
    }
  }

  @Test
  void aTargetsRangeHoldsItsHintsAndNoOtherTargets() {
    byte[] prefix = HintFormat.prefix(new NodeAddress("a", 1));
    byte[] end = HintFormat.rangeEnd(prefix);
    byte[] own = HintFormat.key(prefix, new byte[] {(byte) 0xff, (byte) 0xff});
    byte[] longer = HintFormat.key(HintFormat.prefix(new NodeAddress("a", 12)), new byte[] {0});
    assertThat(Keys.compare(prefix, own)).isNegative();
    assertThat(Keys.compare(own, end)).isNegative();
    assertThat(Keys.compare(longer, prefix) < 0 || Keys.compare(longer, end) >= 0).isTrue();
  }

  @Test
  void recordsThatAreNotHintsAreCorruptionNamingTheRecord() {
    byte[] key = HintFormat.key(HintFormat.prefix(NODE), new byte[] {'k'});
    assertThatThrownBy(() -> HintFormat.decode(new Entry(key, 1, new byte[] {2})))
        .isInstanceOf(StorageException.class).hasMessageContaining("is not a hint");
    assertThatThrownBy(() -> HintFormat.decode(new Entry(key, 1, new byte[] {1, 5})))
        .isInstanceOf(StorageException.class).hasMessageContaining("is not a hint");
    assertThatThrownBy(() -> HintFormat.decode(new Entry(new byte[] {3, 'a', 'b'}, 1, new byte[] {0})))
        .isInstanceOf(StorageException.class).hasMessageContaining("no target prefix");
    assertThatThrownBy(() -> HintFormat.decode(new Entry(new byte[] {3, 'a', '/', 'b', 'k'}, 1, new byte[] {0})))
        .isInstanceOf(StorageException.class).hasMessageContaining("names no node");
  }
}
