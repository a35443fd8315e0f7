package dev.shale.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.util.NativeMemory;
import dev.shale.testkit.TestSeed;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Vfs#realDirect()}: point reads of blocks with O_DIRECT give the bytes a buffered read
 * gives, at any offset and length, up to the end of a file whose size is not aligned; and they
 * go through a descriptor the kernel holds with O_DIRECT (so a broken direct path cannot hide
 * behind buffered reads).
 */
class DirectReadsTest {
  @TempDir Path dir;

  @Test
  void blocksReadDirectlyAreTheBytesOfTheFileAtAnyOffset() throws IOException {
    long seed = TestSeed.forTest("blocksReadDirectlyAreTheBytesOfTheFileAtAnyOffset");
    Random random = new Random(seed);
    // Past DirectReadBuffer's largest kept buffer: reads that grow it, and reads larger than it.
    byte[] bytes = new byte[(int) DirectReadBuffer.MAX_BYTES + 20 * 4096 + 1234];
    random.nextBytes(bytes);
    Path file = dir.resolve("table");
    Files.write(file, bytes);

    try (Vfs.ReadableFile opened = Vfs.realDirect().open(file)) {
      assertThat(directDescriptorsOf(file)).as("descriptors of the file opened with O_DIRECT").isEqualTo(1);
      List<long[]> reads = new ArrayList<>(List.of(
          new long[] {0, 4096}, new long[] {1, 10}, new long[] {4095, 2}, new long[] {4000, 9000},
          new long[] {bytes.length - 1, 1}, new long[] {bytes.length - 1234, 1234}, new long[] {0, bytes.length}));
      for (int i = 0; i < 200; i++) {
        long position = random.nextInt(bytes.length);
        int longest = (int) (bytes.length - position);
        // Mostly a block's size, as gets read; some of any length up to the end.
        reads.add(new long[] {position, 1 + random.nextInt(random.nextBoolean() ? Math.min(longest, 16_384) : longest)});
      }
      for (long[] read : reads) {
        byte[] expected = java.util.Arrays.copyOfRange(bytes, (int) read[0], (int) (read[0] + read[1]));
        assertThat(readBlock(opened, read[0], read[1])).as("%d bytes at %d", read[1], read[0]).isEqualTo(expected);
      }
    }
    assertThat(directDescriptorsOf(file)).as("closed with the file").isZero();
  }

  @Test
  void aBlockPastTheEndOfTheFileIsAnEndOfFileNotAnotherError() throws IOException {
    Path file = dir.resolve("short");
    Files.write(file, new byte[5000]);
    try (Vfs.ReadableFile opened = Vfs.realDirect().open(file)) {
      assertThatThrownBy(() -> readBlock(opened, 4900, 200))
          .isInstanceOf(EOFException.class)
          .hasMessageContaining("run past the end of the file (5000)");
    }
  }

  @Test
  void theRealFileSystemWithoutDirectReadsOpensNoDirectDescriptor() throws IOException {
    Path file = dir.resolve("plain");
    Files.write(file, new byte[100]);
    try (Vfs.ReadableFile opened = Vfs.real().open(file)) {
      assertThat(readBlock(opened, 50, 10)).isEqualTo(new byte[10]);
      assertThat(directDescriptorsOf(file)).isZero();
    }
  }

  private static byte[] readBlock(Vfs.ReadableFile file, long position, long length) throws IOException {
    MemorySegment target = NativeMemory.allocate(length);
    try {
      file.readBlock(target, position);
      return target.toArray(ValueLayout.JAVA_BYTE);
    } finally {
      NativeMemory.free(target);
    }
  }

  // Descriptors of this process open on file with O_DIRECT (octal 040000 in /proc's flags on x86-64, 0200000 on arm64).
  private static int directDescriptorsOf(Path file) throws IOException {
    long flag = System.getProperty("os.arch").equals("aarch64") ? 0200000 : 040000;
    int count = 0;
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : fds.toList()) {
        Path target;
        try {
          target = Files.readSymbolicLink(fd);
        } catch (IOException gone) {
          continue; // closed while listed (the listing's own descriptor)
        }
        if (!target.equals(file.toRealPath())) continue;
        for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo", fd.getFileName().toString()))) {
          if (line.startsWith("flags:") && (Long.parseLong(line.substring(6).trim(), 8) & flag) != 0) count++;
        }
      }
    }
    return count;
  }
}
