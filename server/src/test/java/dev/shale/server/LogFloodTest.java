package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failure that every request meets does not flood the log: one line per distinct failure per
 * interval, the next line saying how often it recurred meanwhile.
 */
class LogFloodTest {
  private static final Pattern REPEATED = Pattern.compile("\\(repeated (\\d+) times in the last (\\d+) s\\)");

  @TempDir Path dir;
  TestServer node;

  @AfterEach
  void stop() {
    if (node != null) node.close();
  }

  /**
   * GETs of a key in a corrupt block, until the node logs the failure a second time (one interval
   * later): the engine's line and the server's each went out twice, and the server's two lines
   * account for every GET.
   */
  @Test
  void getsOfACorruptBlockLogOneLinePerIntervalWithTheCountOfRepeats() throws IOException {
    corruptTheFirstBlockOfAStore();
    node = TestServer.start(dir);
    try (LogCapture engineLog = LogCapture.of("dev.shale.storage.table.Table");
        LogCapture serverLog = LogCapture.of(EntityService.class.getName())) {
      long gets = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (serverLog.lines().stream().noneMatch(l -> REPEATED.matcher(l).find())) {
        assertThat(System.nanoTime() - deadline).as("a second line of the failure within 60 s").isNegative();
        assertThat(node.get(node.entity(id(0))).statusCode()).isEqualTo(500);
        gets++;
      }

      List<String> server = serverLog.lines();
      assertThat(server).as("server lines for %d GETs", gets).hasSize(2)
          .allMatch(l -> l.startsWith("SEVERE get id=" + id(0) + " failed: corrupt data: "));
      assertThat(occurrences(server)).as("GETs the server's lines account for").isEqualTo(gets);
      // The engine's interval started a moment before the server's: its second line came at the
      // same GET or an earlier one, and the GETs after that wait for its next line.
      List<String> engine = engineLog.lines();
      assertThat(engine).as("engine lines for %d GETs", gets).hasSize(2)
          .allMatch(l -> l.contains("table corrupt at offset 0"));
      assertThat(occurrences(engine)).isBetween(2L, gets);
    }
  }

  /** The lines, plus the repeats they report. */
  private static long occurrences(List<String> lines) {
    long count = lines.size();
    for (String line : lines) {
      Matcher m = REPEATED.matcher(line);
      if (m.find()) count += Long.parseLong(m.group(1));
    }
    return count;
  }

  /** A store of one table whose first data block (holding id 0) has a flipped byte. */
  private void corruptTheFirstBlockOfAStore() throws IOException {
    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      for (int i = 0; i < 100; i++) engine.put(id(i).getBytes(StandardCharsets.UTF_8), new byte[100]);
      engine.compact();
    }
    Path table;
    try (Stream<Path> files = Files.list(dir)) {
      table = files.filter(f -> f.toString().endsWith(".sst")).findFirst().orElseThrow();
    }
    try (RandomAccessFile file = new RandomAccessFile(table.toFile(), "rw")) {
      // Inside the first record's value: the block's crc no longer matches.
      file.seek(60);
      int b = file.read();
      file.seek(60);
      file.write(b ^ 0xff);
    }
  }

  private static String id(int i) {
    return "key-%05d".formatted(i);
  }
}
