package dev.shale.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.uring.IoUring;
import dev.shale.storage.uring.IoUringUnavailableException;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RingReads}: aligned blocks of a {@link Vfs#realDirect()} file read through a ring, many
 * in flight, are the file's bytes; files and reads the ring cannot take directly are refused
 * before they reach the kernel.
 */
class RingReadsTest {
  private static final int BLOCK = (int) RingReads.ALIGNMENT;

  @TempDir Path dir;

  @Test
  void directBlocksReadThroughARingAreTheFilesBytes() throws IOException {
    long seed = TestSeed.forTest("directBlocksReadThroughARingAreTheFilesBytes");
    Random random = new Random(seed);
    byte[] content = new byte[4 << 20];
    random.nextBytes(content);
    Path file = dir.resolve("table");
    Files.write(file, content);
    int blocks = content.length / BLOCK;

    try (Vfs.ReadableFile opened = Vfs.realDirect().open(file); IoUring ring = open(32);
        Arena arena = Arena.ofConfined()) {
      Assumptions.assumeTrue(RingReads.canQueue(opened), "this file system refuses O_DIRECT");
      MemorySegment[] buffers = new MemorySegment[ring.entries()];
      for (int i = 0; i < buffers.length; i++) buffers[i] = arena.allocate(4L * BLOCK, RingReads.ALIGNMENT);
      Map<Integer, long[]> pending = new HashMap<>(); // buffer index -> {position, length}
      int issued = 0;
      int verified = 0;
      while (verified < 3000) {
        for (int slot = 0; slot < buffers.length && issued < 3000; slot++) {
          if (pending.containsKey(slot)) continue;
          int length = BLOCK * (1 + random.nextInt(4));
          long position = (long) BLOCK * random.nextInt(blocks - 3);
          assertThat(RingReads.queueDirect(ring, opened, buffers[slot], position, length, slot)).isTrue();
          pending.put(slot, new long[] {position, length});
          issued++;
        }
        ring.submitAndWait(1);
        verified += ring.reap((userData, result) -> {
          long[] read = pending.remove((int) userData);
          assertThat(result).as("bytes read at %d", read[0]).isEqualTo((int) read[1]);
          byte[] expected = Arrays.copyOfRange(content, (int) read[0], (int) (read[0] + read[1]));
          assertThat(buffers[(int) userData].asSlice(0, read[1]).toArray(ValueLayout.JAVA_BYTE))
              .as("%d bytes at %d", read[1], read[0]).isEqualTo(expected);
        });
      }
    }
  }

  @Test
  void filesWithoutADirectDescriptorAndUnalignedReadsAreRefused() throws IOException {
    Path file = dir.resolve("table");
    Files.write(file, new byte[4 * BLOCK]);
    try (Vfs.ReadableFile buffered = Vfs.real().open(file); Vfs.ReadableFile direct = Vfs.realDirect().open(file);
        IoUring ring = open(4); Arena arena = Arena.ofConfined()) {
      MemorySegment aligned = arena.allocate(2L * BLOCK, RingReads.ALIGNMENT);
      assertThat(RingReads.canQueue(buffered)).isFalse();
      assertThatThrownBy(() -> RingReads.queueDirect(ring, buffered, aligned, 0, BLOCK, 0))
          .isInstanceOf(IllegalArgumentException.class);
      Assumptions.assumeTrue(RingReads.canQueue(direct), "this file system refuses O_DIRECT");
      assertThatThrownBy(() -> RingReads.queueDirect(ring, direct, aligned, 100, BLOCK, 0))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> RingReads.queueDirect(ring, direct, aligned, 0, 100, 0))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> RingReads.queueDirect(ring, direct, aligned.asSlice(512), 0, BLOCK, 0))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(ring.inFlight()).as("nothing refused reached the ring").isZero();
    }
  }

  private static IoUring open(int entries) throws IOException {
    try {
      return IoUring.open(entries);
    } catch (IoUringUnavailableException e) {
      System.out.println("io_uring unavailable, test skipped: " + e.getMessage());
      Assumptions.abort("io_uring unavailable: " + e.getMessage());
      throw e;
    }
  }
}
