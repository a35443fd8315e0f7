package dev.shale.storage.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.DiskFullException;
import dev.shale.storage.FreeSpaceVfs;
import dev.shale.storage.ManualClockEnv;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the write path reads the free space again: on the Env's clock, which the test moves, so
 * no test waits for {@link DiskSpace#REFRESH_NANOS} or {@link DiskSpace#PROBE_NANOS} to pass.
 */
class DiskSpaceTest {
  private static final long RESERVE = 1_000;

  @TempDir Path dir;
  private final FreeSpaceVfs vfs = new FreeSpaceVfs(10_000);
  private final ManualClockEnv env = new ManualClockEnv(0, vfs);

  @Test
  void anEstimateFarAboveTheReserveIsReadAgainOnlyAfterTheRefreshInterval() {
    DiskSpace space = new DiskSpace(env, dir, RESERVE);
    space.admitWrite(100);
    assertThat(vfs.readings()).isEqualTo(1);

    env.advanceNanos(DiskSpace.REFRESH_NANOS - 1);
    space.admitWrite(100);
    assertThat(vfs.readings()).isEqualTo(1);

    env.advanceNanos(1);
    space.admitWrite(100);
    assertThat(vfs.readings()).isEqualTo(2);
  }

  @Test
  void aRefusalIsReadAgainAfterTheProbeIntervalAndWritesResumeOnceThereIsRoom() {
    DiskSpace space = new DiskSpace(env, dir, RESERVE);
    vfs.setFreeBytes(RESERVE + 50);
    assertThatThrownBy(() -> space.admitWrite(100)).isInstanceOf(DiskFullException.class);
    long readsAtRefusal = vfs.readings();

    vfs.setFreeBytes(1_000_000); // room again, but not read before PROBE_NANOS have passed
    assertThatThrownBy(() -> space.admitWrite(100)).isInstanceOf(DiskFullException.class);
    assertThat(vfs.readings()).isEqualTo(readsAtRefusal);

    env.advanceMillis(TimeUnit.NANOSECONDS.toMillis(DiskSpace.PROBE_NANOS));
    space.admitWrite(100);
    assertThat(space.refusal()).isNull();
    assertThat(vfs.readings()).isEqualTo(readsAtRefusal + 1);
  }
}
