package dev.shale.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A directory measured while files come and go in it, as an engine's compactions create and
 * delete tables under the benchmark: a file deleted between its listing and its sizing must not
 * cut the walk short, or the store's size comes out a fraction of itself (a 10 GB store once
 * measured 205 MiB, and the growth sampler counted every file it lost as new again).
 */
class DirectoryGrowthTest {
  private static final int STABLE_FILES = 300;
  private static final int FILE_BYTES = 100;
  private static final int WALKS = 400;

  @TempDir Path dir;

  @Test
  @Timeout(60)
  void filesDeletedDuringTheWalkDoNotHideTheOthers() throws Exception {
    for (int i = 0; i < STABLE_FILES; i++) {
      Files.write(dir.resolve("stable-%04d.sst".formatted(i)), new byte[FILE_BYTES]);
    }
    AtomicBoolean stop = new AtomicBoolean();
    Thread churn = Thread.ofPlatform().name("churn").start(() -> {
      for (long n = 0; !stop.get(); n++) {
        // Names that sort among the stable ones, so the walk lists some before and some after.
        Path file = dir.resolve("stable-%04d-churn-%d.sst".formatted(n % STABLE_FILES, n));
        try {
          Files.write(file, new byte[1]);
          Files.delete(file);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    });
    try {
      for (int walk = 0; walk < WALKS; walk++) {
        // Each churned file is 1 byte and at most one exists at a time.
        assertThat(DirectoryGrowth.spaceBytes(dir)).as("walk %d", walk)
            .isBetween((long) STABLE_FILES * FILE_BYTES, (long) STABLE_FILES * FILE_BYTES + 1);
      }
    } finally {
      stop.set(true);
      churn.join(TimeUnit.SECONDS.toMillis(10));
    }
  }

  @Test
  void aMissingDirectoryHoldsNothing() {
    assertThat(DirectoryGrowth.spaceBytes(dir.resolve("gone"))).isZero();
  }

  @Test
  void filesInSubdirectoriesCount() throws IOException {
    Files.createDirectories(dir.resolve("a/b"));
    Files.write(dir.resolve("a/b/x"), new byte[7]);
    Files.write(dir.resolve("y"), new byte[5]);
    assertThat(DirectoryGrowth.spaceBytes(dir)).isEqualTo(12);
  }
}
