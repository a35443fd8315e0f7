package dev.shale.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * A small filesystem of its own for a test, to fill up: a tmpfs of a given size mounted on a new
 * temporary directory (needs root, which this project's machines and CI have). Where it cannot be
 * mounted the test is skipped, with the reason printed. {@link #close} unmounts it, lazily if a
 * file is still open in it, and removes the directory.
 */
public final class SmallDisk implements AutoCloseable {
  private final Path root;

  private SmallDisk(Path root) {
    this.root = root;
  }

  /** Mounts a tmpfs of {@code sizeBytes} (rounded up to pages), or skips the calling test. */
  public static SmallDisk mount(long sizeBytes) throws IOException {
    Path root = Files.createTempDirectory("shale-small-disk-");
    String output = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + sizeBytes, "tmpfs", root.toString()));
    if (output != null) {
      Files.deleteIfExists(root);
      Assumptions.abort("cannot mount a tmpfs for a full-disk test (it needs root): " + output);
    }
    return new SmallDisk(root);
  }

  public Path root() {
    return root;
  }

  /** The bytes still free on it. */
  public long freeBytes() throws IOException {
    return Files.getFileStore(root).getUsableSpace();
  }

  /**
   * Writes {@code name} with zeros until only about {@code leaveFreeBytes} are free (the
   * filesystem's own rounding aside); returns the file, to delete when room is wanted back.
   */
  public Path fillLeaving(String name, long leaveFreeBytes) throws IOException {
    Path ballast = root.resolve(name);
    long size = Math.max(0, freeBytes() - leaveFreeBytes);
    byte[] chunk = new byte[64 << 10];
    try (var out = Files.newOutputStream(ballast)) {
      for (long left = size; left > 0; left -= chunk.length) {
        out.write(chunk, 0, (int) Math.min(chunk.length, left));
      }
    }
    return ballast;
  }

  /**
   * Writes {@code name} with zeros until the file system refuses a byte more ("No space left on
   * device"), as {@code dd if=/dev/zero of=name} does; returns the file, to delete when room is
   * wanted back.
   */
  public Path fillUp(String name) throws IOException {
    Path ballast = root.resolve(name);
    byte[] chunk = new byte[64 << 10];
    try (FileChannel out = FileChannel.open(ballast, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      // Smaller and smaller writes, down to one byte, so that not even a partial chunk's room is left.
      for (int size = chunk.length; size > 0; ) {
        try {
          out.write(ByteBuffer.wrap(chunk, 0, size));
        } catch (IOException full) {
          if (!String.valueOf(full.getMessage()).contains("No space left on device")) throw full;
          size /= 2;
        }
      }
    }
    return ballast;
  }

  @Override
  public void close() {
    if (run(List.of("umount", root.toString())) != null) run(List.of("umount", "-l", root.toString()));
    try {
      Files.deleteIfExists(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // Runs a command; null if it succeeded, else what it printed and its exit code.
  private static @Nullable String run(List<String> command) { // null: it ran and exited 0
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return command + " did not finish within 30 s";
      }
      return p.exitValue() == 0 ? null : command + " exited " + p.exitValue() + ": " + out;
    } catch (IOException e) {
      return command + " could not run: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return command + " interrupted";
    }
  }
}
