package dev.shale.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Replaces a small file whole, crash-safely: the cluster map and a handoff's progress are kept
 * this way. After a crash the file is the old one or the new one, never a mix or a torn write.
 */
public final class WholeFile {
  private WholeFile() {}

  /**
   * The bytes of {@code file}, or empty if there is none; {@code what} names it in the error
   * ("the cluster map").
   *
   * @throws UncheckedIOException for a file that is there but cannot be read
   */
  public static Optional<byte[]> readIfPresent(Path file, String what) {
    try {
      return Optional.of(Files.readAllBytes(file));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + what + " " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes {@code bytes} to {@code <target>.partial}, fsyncs it, renames it over {@code target}
   * and fsyncs the directory (the rename is durable only then). A leftover {@code .partial} from
   * a crash is overwritten by the next write.
   */
  public static void write(Path target, byte[] bytes) throws IOException {
    Path partial = target.resolveSibling(target.getFileName() + ".partial");
    try (FileChannel channel = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) channel.write(buffer);
      channel.force(true);
    }
    Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel directory = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
      directory.force(true);
    }
  }
}
