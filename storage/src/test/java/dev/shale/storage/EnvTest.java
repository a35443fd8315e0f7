package dev.shale.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EnvTest {
  @Test
  void theRealEnvStartsANamedDaemonThreadAndHandsWhatKillsItToItsOwner() throws Exception {
    CompletableFuture<Throwable> death = new CompletableFuture<>();
    CompletableFuture<String> ranAs = new CompletableFuture<>();
    Thread thread = Env.real().startDaemon("env-test", CpuPriority.LOW, (t, e) -> death.complete(e), () -> {
      ranAs.complete(Thread.currentThread().getName());
      throw new IllegalStateException("the body's bug");
    });

    assertThat(thread.isDaemon()).isTrue();
    assertThat(ranAs.get(30, TimeUnit.SECONDS)).isEqualTo("env-test");
    assertThat(death.get(30, TimeUnit.SECONDS)).hasMessage("the body's bug");
    thread.join();
  }

  @Test
  void theRealThreadFactoryMakesUnstartedDaemonThreadsNumberedUnderItsPrefix() throws Exception {
    ThreadFactory factory = Env.real().threadFactory("env-pool", CpuPriority.NORMAL);
    CompletableFuture<String> ranAs = new CompletableFuture<>();

    Thread first = factory.newThread(() -> ranAs.complete(Thread.currentThread().getName()));
    Thread second = factory.newThread(() -> {});

    assertThat(first.getState()).isEqualTo(Thread.State.NEW);
    assertThat(first.isDaemon()).isTrue();
    assertThat(first.getName()).isEqualTo("env-pool-1");
    assertThat(second.getName()).isEqualTo("env-pool-2");
    first.start();
    assertThat(ranAs.get(30, TimeUnit.SECONDS)).isEqualTo("env-pool-1");
    first.join();
  }

  @Test
  void overridingFilesKeepsTheWallClockAndOverridingTheWallClockKeepsTheFiles() {
    ManualClockEnv base = new ManualClockEnv(5_000);
    ReadRecordingVfs files = new ReadRecordingVfs();

    Env both = base.withVfs(files).withWallClock(() -> 42L);
    assertThat(both.vfs()).isSameAs(files);
    assertThat(both.wallMillis()).isEqualTo(42L);
    assertThat(base.withWallClock(() -> 42L).withVfs(files).wallMillis()).isEqualTo(42L);

    Env filesOnly = base.withVfs(files);
    base.advanceMillis(1_000);
    assertThat(filesOnly.wallMillis()).isEqualTo(6_000);
    assertThat(filesOnly.nanoTime()).isEqualTo(base.nanoTime());
  }

  @Test
  void theManualClockMovesOnlyWhenTold() {
    ManualClockEnv env = new ManualClockEnv(1_000);
    long nanos = env.nanoTime();
    assertThat(env.nanoTime()).isEqualTo(nanos);

    env.advanceMillis(3);
    assertThat(env.nanoTime() - nanos).isEqualTo(3_000_000);
    assertThat(env.wallMillis()).isEqualTo(1_003);

    env.setWallMillis(500); // a step back, as NTP may make: monotonic time does not follow
    assertThat(env.wallMillis()).isEqualTo(500);
    assertThat(env.nanoTime() - nanos).isEqualTo(3_000_000);
  }
}
