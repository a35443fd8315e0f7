package dev.shale.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.TestSeed;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ChunkedBodyTest {
  @Test
  void joinsChunksOfEverySizeAcrossBlocks() {
    long seed = TestSeed.forTest("ChunkedBodyTest");
    Random random = new Random(seed);
    ChunkedBody body = new ChunkedBody();
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    while (expected.size() < 3_000_000) {
      byte[] chunk = new byte[random.nextInt(4) == 0 ? random.nextInt(200_000) : random.nextInt(100)];
      random.nextBytes(chunk);
      ByteBuf buf = Unpooled.wrappedBuffer(chunk);
      body.append(buf);
      assertThat(buf.isReadable()).isFalse();
      expected.writeBytes(chunk);
    }
    assertThat(body.length()).isEqualTo(expected.size());
    assertThat(body.toArray()).as("seed %d", seed).isEqualTo(expected.toByteArray());
  }

  @Test
  void emptyBodyIsAnEmptyArray() {
    ChunkedBody body = new ChunkedBody();
    body.append(Unpooled.EMPTY_BUFFER);
    assertThat(body.toArray()).isEmpty();
  }
}
