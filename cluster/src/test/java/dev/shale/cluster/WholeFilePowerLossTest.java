package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.CrashVfs;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WholeFile writes through a Vfs, so a power loss can be taken at each of its calls: the file
 * that survives is the old one or the new one, whole, and the new one once write returned.
 */
class WholeFilePowerLossTest {
  private static final byte[] OLD = "the old map".getBytes(StandardCharsets.UTF_8);
  private static final byte[] NEW = "the new map, longer than the old".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;

  @Test
  void aPowerLossAtAnyCallOfAWriteLeavesTheOldFileOrTheNewOneWhole() throws IOException {
    boolean reachedTheEnd = false;
    for (int lossAt = 1; !reachedTheEnd; lossAt++) {
      Path root = dir.resolve("store-" + lossAt);
      CrashVfs first = new CrashVfs(root, dir.resolve("unused-" + lossAt));
      WholeFile.write(first, root.resolve("map"), OLD); // the old file, durable: not crashed

      CrashVfs vfs = new CrashVfs(root, dir.resolve("survivors-" + lossAt));
      AtomicInteger calls = new AtomicInteger();
      int at = lossAt;
      vfs.losePowerAt((op, file) -> calls.incrementAndGet() == at);
      boolean written;
      try {
        WholeFile.write(vfs, root.resolve("map"), NEW);
        written = true;
      } catch (IOException e) {
        written = false;
      }
      reachedTheEnd = written;
      Path survivors = vfs.powerLoss();

      Optional<byte[]> left = WholeFile.readIfPresent(Vfs.real(), survivors.resolve("map"), "the map");
      assertThat(left).as("power lost at call %d (%s)", lossAt, vfs.lostAt()).isPresent();
      if (written) {
        assertThat(left.get()).as("after write returned").isEqualTo(NEW);
      } else {
        assertThat(left.get()).as("power lost at call %d (%s)", lossAt, vfs.lostAt()).isIn(OLD, NEW);
      }
    }
  }
}
