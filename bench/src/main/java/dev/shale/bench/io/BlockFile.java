package dev.shale.bench.io;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;

/**
 * The file {@code shale bench io} reads: random (incompressible) bytes, written once and reused by
 * later runs, so a run of a 4 GiB file does not spend a minute writing it again.
 */
final class BlockFile {
  private static final int CHUNK_BYTES = 1 << 20;

  private BlockFile() {}

  /**
   * Makes {@code file} at least {@code sizeBytes} long: kept as it is when it is already, else
   * filled with random bytes from its end up to {@code sizeBytes}, and synced, so that the reads
   * that follow find it on the disk.
   */
  static void prepare(Path file, long sizeBytes, long seed, PrintWriter out) throws IOException {
    long existing = Files.exists(file) ? Files.size(file) : -1;
    if (existing >= sizeBytes) {
      out.println("file: reusing " + file + " (" + existing + " bytes; reads go to its first " + sizeBytes + ")");
      return;
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) Files.createDirectories(parent);
    long from = Math.max(0, existing);
    out.println("file: writing " + (sizeBytes - from) + " random bytes to " + file + (from > 0 ? " from " + from : ""));
    out.flush();
    SplittableRandom random = new SplittableRandom(seed);
    ByteBuffer chunk = ByteBuffer.allocate(CHUNK_BYTES);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      long position = from;
      while (position < sizeBytes) {
        chunk.clear();
        while (chunk.remaining() >= Long.BYTES) chunk.putLong(random.nextLong());
        chunk.flip().limit((int) Math.min(CHUNK_BYTES, sizeBytes - position));
        while (chunk.hasRemaining()) position += channel.write(chunk, position);
      }
      channel.force(true);
    }
  }
}
