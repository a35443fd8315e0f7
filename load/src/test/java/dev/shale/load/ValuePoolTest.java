package dev.shale.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.ByteArrayOutputStream;
import java.util.SplittableRandom;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;

class ValuePoolTest {
  @Test
  void valuesWrittenOneAfterAnotherDifferAndDoNotCompressTogether() {
    ValuePool pool = new ValuePool(1024, 7);
    SplittableRandom random = new SplittableRandom(11);
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    byte[] previous = null;
    for (int i = 0; i < 64; i++) {
      ByteBuf value = pool.next(random);
      assertThat(value.readableBytes()).isEqualTo(1024);
      byte[] bytes = ByteBufUtil.getBytes(value);
      assertThat(bytes).as("value %d differs from the one before", i).isNotEqualTo(previous);
      block.writeBytes(bytes);
      previous = bytes;
    }
    // 64 KiB of values as a table's blocks hold them: one shared value compressed to almost nothing.
    Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
    deflater.setInput(block.toByteArray());
    deflater.finish();
    byte[] out = new byte[block.size() * 2];
    int compressed = deflater.deflate(out);
    deflater.end();
    assertThat(compressed).as("compressed size of 64 KiB of values").isGreaterThan(block.size() * 95 / 100);
  }

  @Test
  void anEmptyValueIsEmpty() {
    assertThat(new ValuePool(0, 1).next(new SplittableRandom(1)).readableBytes()).isZero();
  }
}
