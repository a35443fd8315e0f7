package dev.shale.storage.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineStats;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under a load that flushes and compacts many times, the engine logs no line per flush or
 * compaction at INFO, only a summary of them (ActivitySummary), whose counts are the engine's.
 */
class ActivitySummaryTest {
  private static final Pattern SUMMARY = Pattern.compile(
      "last \\d+ s: flushed (\\d+) memtables \\([0-9.]+ MB\\), compacted (\\d+) times \\(read [0-9.]+ MB, wrote [0-9.]+ MB\\), \\d+ write stalls");

  @TempDir Path dir;

  @Test
  void flushesAndCompactionsAreSummarizedNotLoggedOneByOneAtInfo() {
    Logger storage = Logger.getLogger("dev.shale.storage");
    List<LogRecord> atInfo = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.INFO.intValue()) atInfo.add(record);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Level before = storage.getLevel();
    storage.setLevel(Level.INFO);
    storage.addHandler(capture);
    EngineStats stats;
    try {
      try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
        for (int i = 0; i < 20_000; i++) engine.put(EngineTesting.bytes("k" + (i % 5_000)), new byte[100]);
        engine.compact();
        stats = engine.stats();
      }
    } finally {
      storage.removeHandler(capture);
      storage.setLevel(before);
    }
    assertThat(stats.flushes()).as("the load flushed many memtables").isGreaterThanOrEqualTo(10);
    assertThat(stats.compactions()).as("and compacted").isGreaterThanOrEqualTo(2);

    List<String> messages = atInfo.stream().map(LogRecord::getMessage).toList();
    assertThat(messages).as("no line per flush or compaction at INFO")
        .noneMatch(m -> m.startsWith("flushed ") || m.startsWith("compacted "));
    List<Matcher> summaries = messages.stream().map(SUMMARY::matcher).filter(Matcher::find).toList();
    assertThat(summaries).as("the summaries among %s", messages).isNotEmpty();
    long flushes = summaries.stream().mapToLong(m -> Long.parseLong(m.group(1))).sum();
    long compactions = summaries.stream().mapToLong(m -> Long.parseLong(m.group(2))).sum();
    assertThat(flushes).isGreaterThanOrEqualTo(stats.flushes());
    assertThat(compactions).isGreaterThanOrEqualTo(stats.compactions());
  }
}
