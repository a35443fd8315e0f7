package dev.shale.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.bench.io.IoBench;
import dev.shale.bench.io.IoBenchConfig;
import dev.shale.bench.io.IoMode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code shale bench io} end to end on a small file: it makes the file once and reuses it, both
 * modes read and report (or uring says it is unavailable), and the JSON holds one valid object
 * per mode. What the figures are is for the integrator's quiet machine, not for a test.
 */
class IoBenchTest {
  @TempDir Path dir;

  @Test
  void bothModesReadTheFileAndReportEachAsTableAndJson() throws Exception {
    Path file = dir.resolve("blocks");
    Path json = dir.resolve("io.json");
    IoBenchConfig config = new IoBenchConfig(file, 1 << 20, 4096, IoMode.named("both"), 2, 4, 0, 300, json, 7);

    StringWriter first = new StringWriter();
    assertThat(IoBench.run(config, new PrintWriter(first, true))).as(first.toString()).isTrue();
    assertThat(Files.size(file)).isEqualTo(1 << 20);
    assertThat(first.toString()).contains("file: writing 1048576 random bytes", "reads/s", "pread", "uring");

    List<Map<String, Object>> results = MiniJson.parseArrayOfObjects(Files.readString(json));
    assertThat(results).extracting(r -> r.get("mode")).containsExactly("pread", "uring");
    Map<String, Object> pread = results.get(0);
    assertThat(pread.get("status")).isEqualTo("ok");
    assertThat(pread.get("threads")).isEqualTo(2.0);
    assertThat((Double) pread.get("reads")).as("reads counted").isPositive();
    assertThat((Double) pread.get("reader_cpu_us_per_read")).isPositive();
    assertThat((Double) pread.get("p99_us")).isGreaterThanOrEqualTo((Double) pread.get("p50_us"));
    Map<String, Object> uring = results.get(1);
    if (uring.get("status").equals("ok")) {
      assertThat(uring.get("depth")).isEqualTo(4.0);
      assertThat((Double) uring.get("io_uring_kernel_workers")).as("read from /proc/self/task").isNotNegative();
      assertThat((Double) uring.get("reads")).as("reads counted").isPositive();
      assertThat((Double) uring.get("reader_cpu_us_per_read")).isPositive();
    } else {
      System.out.println("io_uring unavailable here: " + uring.get("message"));
      assertThat(uring.get("status")).isEqualTo("unavailable");
    }

    byte[] written = Files.readAllBytes(file);
    StringWriter second = new StringWriter();
    IoBenchConfig again = new IoBenchConfig(file, 1 << 20, 4096, IoMode.named("pread"), 1, 1, 0, 50, null, 8);
    assertThat(IoBench.run(again, new PrintWriter(second, true))).isTrue();
    assertThat(second.toString()).contains("file: reusing");
    assertThat(Files.readAllBytes(file)).as("a file reused as it is").isEqualTo(written);
  }

  @Test
  void settingsOutsideTheirRangesAreRefusedNamingTheOption() {
    Path file = dir.resolve("blocks");
    assertThatThrownBy(() -> new IoBenchConfig(file, 1 << 20, 1000, List.of(IoMode.PREAD), 1, 1, 0, 1, null, 1))
        .hasMessageContaining("--block-size");
    assertThatThrownBy(() -> new IoBenchConfig(file, 5000, 4096, List.of(IoMode.PREAD), 1, 1, 0, 1, null, 1))
        .hasMessageContaining("--size");
    assertThatThrownBy(() -> new IoBenchConfig(file, 8192, 4096, List.of(IoMode.URING), 1, 0, 0, 1, null, 1))
        .hasMessageContaining("--depth");
    assertThatThrownBy(() -> IoMode.named("aio")).hasMessageContaining("--mode");
  }
}
