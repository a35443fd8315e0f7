package dev.shale.cluster;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.shale.storage.Vfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Replaces a small file whole, crash-safely: the cluster map and a handoff's progress are kept
 * this way. After a crash the file is the old one or the new one, never a mix or a torn write.
 * Through a {@link Vfs}, so that a crash test can take the power away from it as from the engine.
 */
public final class WholeFile {
  private WholeFile() {}

  /**
   * The bytes of {@code file}, or empty if there is none; {@code what} names it in the error
   * ("the cluster map").
   *
   * @throws UncheckedIOException for a file that is there but cannot be read
   */
  public static Optional<byte[]> readIfPresent(Vfs vfs, Path file, String what) {
    try (Vfs.ReadableFile read = vfs.open(file); Arena arena = Arena.ofConfined()) {
      return Optional.of(read.map(arena).toArray(JAVA_BYTE)); // an empty file maps to NULL: no bytes
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + what + " " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes {@code bytes} to {@code <target>.partial}, fsyncs it, renames it over {@code target}
   * and fsyncs the directory (the rename is durable only then). A leftover {@code .partial} from
   * a crash is deleted first (files through a Vfs are created new, never overwritten).
   */
  public static void write(Vfs vfs, Path target, byte[] bytes) throws IOException {
    Path partial = target.resolveSibling(target.getFileName() + ".partial");
    vfs.delete(partial);
    try (Vfs.WritableFile file = vfs.create(partial)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) file.append(buffer);
      file.sync(true);
    }
    vfs.rename(partial, target);
    vfs.syncDirectory(Objects.requireNonNull(target.toAbsolutePath().getParent(), "a file is in a directory"));
  }
}
