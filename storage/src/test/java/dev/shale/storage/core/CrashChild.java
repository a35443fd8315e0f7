package dev.shale.storage.core;

import dev.shale.storage.EngineOptions;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child process of {@link CrashTest}: writes keys to an engine in {@code args[0]} with tiny
 * memtables (so flushes and compactions happen all the time) and calls compact() now and then,
 * appending each acknowledged key to the file {@code args[1]} after its put returns. It halts
 * the JVM (exit 137, no shutdown hooks, nothing flushed: a real abrupt death) the first time the
 * crash point named by {@code -Dshale.crashAt} is reached; if it never is, it exits 0.
 */
final class CrashChild {
  static final int EXIT_CRASHED = 137;
  static final int KEYS = 6_000;

  private CrashChild() {}

  public static void main(String[] args) throws IOException {
    String crashAt = System.getProperty("shale.crashAt");
    Hooks hooks = Hooks.withCrashPoints(name -> {
      if (name.equals(crashAt)) Runtime.getRuntime().halt(EXIT_CRASHED);
    });
    try (FileOutputStream acknowledged = new FileOutputStream(args[1], true);
        LsmEngine engine = LsmEngine.open(Path.of(args[0]), options(), hooks)) {
      for (int i = 0; i < KEYS; i++) {
        engine.put(key(i), value(i));
        // write() hands the line to the OS at once: it survives the halt, as the put does.
        acknowledged.write((i + "\n").getBytes(StandardCharsets.US_ASCII));
        if (i % 1_500 == 1_499) engine.compact();
      }
    }
  }

  static EngineOptions options() {
    return EngineTesting.smallOptions()
        .withL0Triggers(2, 6, 10)
        .withLevelSizes(128 << 10, 32 << 10);
  }

  static byte[] key(int i) {
    return "key-%06d".formatted(i).getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] value(int i) {
    return ("value-" + i + "-" + "x".repeat(i % 200)).getBytes(StandardCharsets.US_ASCII);
  }
}
