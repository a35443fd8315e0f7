package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code shale tool verify|dump|get|scan} on a real store written by the real engine and closed:
 * exit statuses and messages, real damage found and named, and every tool leaving every file of
 * the directory (its LOCK too) byte for byte and by mtime as it was, also where opening would
 * write (a torn tail it would cut, leftovers it would delete).
 */
// The tool commands silence the engine's logger while they run and restore its level after:
// two of them at once would restore each other's silence.
@ResourceLock("dev.shale.storage logger level")
class OfflineToolsTest {
  private static final long WRITTEN_AT = 1_750_000_000_000L;
  private static final long TTL_MILLIS = 60_000;
  private static final String EXPIRES = Instant.ofEpochMilli(WRITTEN_AT + TTL_MILLIS).toString();

  @TempDir Path dir;
  private Path data;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void fill() {
    data = dir.resolve("data");
    AtomicLong wallMillis = new AtomicLong(WRITTEN_AT);
    EngineOptions options = EngineOptions.defaults().withMemtableSizeBytes(64 << 10).withL0Triggers(20, 24, 28)
        .withEnv(Env.real().withWallClock(wallMillis::get));
    try (Engine engine = Engine.open(data, options)) {
      for (int i = 0; i < 2_000; i++) engine.put(bytes(key(i)), bytes(value(i)));
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (engine.stats().immutableMemtables() > 0) {
        if (System.nanoTime() > deadline) throw new AssertionError("the flushes did not finish");
        sleepBriefly();
      }
      engine.delete(bytes(key(7)));
      engine.put(bytes("session"), bytes("for a minute"), WRITTEN_AT + TTL_MILLIS);
      engine.put(bytes("bin\tary"), new byte[] {'a', '\n', (byte) 0xFF, 0});
    }
  }

  @Test
  void verifyOfAWholeStoreExitsZeroWithASummary() {
    assertThat(run("tool", "verify", data.toString())).as(err.toString()).isZero();

    assertThat(out.toString()).contains(data + ": whole. Read 1 manifest, ").contains("every checksum holds");
  }

  @Test
  void verifyListsEachDamageWithFileAndOffsetAndExitsOne() throws IOException {
    List<Path> tables = files(".sst");
    flip(tables.get(0), 5);
    Files.delete(tables.get(1));
    Path log = files(".wal").getLast();
    byte[] bytes = Files.readAllBytes(log);
    Arrays.fill(bytes, bytes.length - 30, bytes.length, (byte) 0);
    Files.write(log, bytes);

    assertThat(run("tool", "verify", data.toString())).isEqualTo(Main.FAILED);

    assertThat(out.toString())
        .contains("DAMAGE " + tables.get(0) + ": table corrupt at offset 0: block of ")
        .contains("DAMAGE " + tables.get(1) + ": named by MANIFEST-")
        .contains("DAMAGE " + log + ": log tail dropped at open: ")
        .contains(data + ": DAMAGED: 3 problems in 3 files");
  }

  @Test
  void aLogCutMidRecordIsATornAppendNotDamage() throws IOException {
    Path log = files(".wal").getLast();
    byte[] bytes = Files.readAllBytes(log);
    Files.write(log, Arrays.copyOf(bytes, bytes.length - 3)); // the last record loses its last 3 bytes

    assertThat(run("tool", "verify", data.toString())).as(out.toString()).isZero();

    assertThat(out.toString()).contains("note   " + log + ", offset ").contains(": torn append of ")
        .contains(data + ": whole.");
  }

  @Test
  void badUsageExitsTwo() {
    assertThat(run("tool", "verify", dir.resolve("nothing").toString())).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("no such directory");
    assertThat(run("tool", "verify")).isEqualTo(Main.USAGE);
    assertThat(run("tool", "dump", dir.resolve("notes.txt").toString())).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("is not named as a table");
    assertThat(run("tool", "get", data.toString(), "k", "--now", "yesterday")).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("--now: not an ISO-8601 instant");
    assertThat(run("tool")).isEqualTo(Main.USAGE);
  }

  @Test
  void dumpPrintsATableALogAndTheManifestAsTextAndJson() throws IOException {
    Path table = files(".sst").getFirst();
    assertThat(run("tool", "dump", table.toString())).as(err.toString()).isZero();
    assertThat(out.toString()).startsWith("table " + table + ": ").contains("format_version 4")
        .contains("index\n  block 0  offset 0  ").contains("'" + key(0) + "'  value  version ");

    reset();
    assertThat(run("tool", "dump", "--json", "--values", "5", table.toString())).as(err.toString()).isZero();
    List<String> lines = out.toString().lines().toList();
    assertThat(lines).allMatch(line -> line.startsWith("{\"type\": \"") && line.endsWith("}"));
    assertThat(lines.getFirst()).contains("\"formatVersion\": 4");
    assertThat(lines).anyMatch(line -> line.contains("\"key\": \"" + key(0) + "\"") && line.contains("\"value\": \"value\"")
        && line.contains("\"valueLength\": " + value(0).length()));

    // The last writes may span two log segments: the memtable freezes at a size drawn anew for each
    // (WriteQueue.nextFreezeSize), so a freeze can fall between them. Every segment is dumped.
    StringBuilder logs = new StringBuilder();
    for (Path log : files(".wal")) {
      reset();
      assertThat(run("tool", "dump", log.toString())).as(err.toString()).isZero();
      logs.append(out);
    }
    assertThat(logs.toString()).contains("records\n  offset 16  '").contains("'" + key(7) + "'  tombstone  version ")
        .contains("'session'  expiring value  version ").contains("expires " + EXPIRES)
        .contains("'bin\\tary'  value  version ").contains("value 'a\\n\\xff\\x00'");

    reset();
    Path manifest = files("MANIFEST-").getFirst();
    assertThat(run("tool", "dump", manifest.toString())).as(err.toString()).isZero();
    assertThat(out.toString()).contains("record at offset 16: next_file_number ").contains("  000");
  }

  @Test
  void dumpReadsOnPastADamagedBlockAndExitsOne() throws IOException {
    Path table = files(".sst").getFirst();
    flip(table, 5);

    assertThat(run("tool", "dump", table.toString())).isEqualTo(Main.FAILED);

    assertThat(out.toString()).contains("DAMAGE " + table + ": table corrupt at offset 0").contains("  block 1  '");
  }

  @Test
  void getAndScanGiveWhatANodeWouldServe() {
    assertThat(run("tool", "get", data.toString(), key(3))).as(err.toString()).isZero();
    assertThat(out.toString()).isEqualTo(value(3) + "\n");

    reset();
    assertThat(run("tool", "get", data.toString(), key(7))).isEqualTo(Main.FAILED);
    assertThat(err.toString()).startsWith("shale: '" + key(7) + "' has no value in " + data + ": deleted at version ");

    reset();
    String beforeExpiry = Instant.ofEpochMilli(WRITTEN_AT + TTL_MILLIS - 1).toString();
    assertThat(run("tool", "get", "--verbose", "--now", beforeExpiry, data.toString(), "session")).isZero();
    assertThat(out.toString()).contains("key 'session'\nversion ").contains("expires " + EXPIRES + "\nvalue for a minute\n");

    reset();
    assertThat(run("tool", "get", "--now", Long.toString(WRITTEN_AT + TTL_MILLIS), data.toString(), "session"))
        .isEqualTo(Main.FAILED);
    assertThat(err.toString()).contains("has no value").contains("expired at " + EXPIRES);

    reset();
    assertThat(run("tool", "scan", data.toString(), "--start", key(5), "--end", key(10), "--values", "10")).isZero();
    String cut = "...(" + value(5).length() + " bytes)";
    assertThat(out.toString().lines().toList()).containsExactly(key(5) + "\tvalue of 5" + cut,
        key(6) + "\tvalue of 6" + cut, key(8) + "\tvalue of 8" + cut, key(9) + "\tvalue of 9" + cut);

    reset();
    assertThat(run("tool", "scan", data.toString(), "--start", "b", "--end", "c")).isZero();
    assertThat(out.toString()).isEqualTo("bin\\tary\ta\\n\\xff\\x00\n");
  }

  @Test
  void noToolWritesToTheStoreEvenWhereOpeningWould() throws IOException {
    // A torn tail (opening cuts it), a leftover table (opening deletes it), a file being written.
    Path log = files(".wal").getLast();
    byte[] torn = new byte[18];
    torn[4] = (byte) 0xE8;
    torn[5] = 0x03;
    Files.write(log, torn, StandardOpenOption.APPEND);
    Files.write(data.resolve("999990.sst"), Files.readAllBytes(files(".sst").getFirst()));
    Files.write(data.resolve("000001.tmp"), new byte[] {1, 2, 3});
    Map<String, String> before = contents(data);

    assertThat(run("tool", "verify", data.toString())).as(out.toString()).isZero();
    assertThat(out.toString()).contains("note   " + log + ", offset ").contains("torn append of 18 bytes")
        .contains("999990.sst: named by no manifest snapshot");
    for (Path file : files("")) run("tool", "dump", file.toString());
    run("tool", "dump", "--json", log.toString());
    assertThat(run("tool", "get", data.toString(), key(1))).isZero();
    assertThat(run("tool", "scan", data.toString())).isZero();

    assertThat(contents(data)).as("every file by name, sha-256 and mtime").isEqualTo(before);
  }

  private static void sleepBriefly() {
    try {
      Thread.sleep(2);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for the flushes");
    }
  }

  private int run(String... args) {
    return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  private void reset() {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
  }

  private List<Path> files(String nameContains) throws IOException {
    try (Stream<Path> files = Files.list(data)) {
      return files.filter(f -> f.getFileName().toString().contains(nameContains))
          .filter(f -> !f.getFileName().toString().equals("LOCK") && !f.getFileName().toString().endsWith(".tmp"))
          .sorted().toList();
    }
  }

  private static String key(int i) {
    return String.format("key-%05d", i);
  }

  private static String value(int i) {
    return "value of " + i + " " + "x".repeat(50);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void flip(Path file, long offset) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    bytes[Math.toIntExact(offset)] ^= 0x5A;
    Files.write(file, bytes);
  }

  /** Every file of {@code directory} by name, with the sha-256 of its bytes and its mtime. */
  static Map<String, String> contents(Path directory) {
    Map<String, String> contents = new TreeMap<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        contents.put(file.getFileName().toString(),
            HexFormat.of().formatHex(digest) + " " + Files.getLastModifiedTime(file).toMillis());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
    return contents;
  }
}
