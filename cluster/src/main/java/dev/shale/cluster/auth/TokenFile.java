package dev.shale.cluster.auth;

import dev.shale.cluster.WholeFile;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * A token set kept in a file (docs/format.md, "API tokens"), written whole, fsynced and renamed
 * into place ({@link WholeFile}, as the cluster map's file): old or new after any crash.
 */
public final class TokenFile {
  private final Vfs vfs;
  private final Path file;

  public TokenFile(Vfs vfs, Path file) {
    this.vfs = vfs;
    this.file = file;
  }

  public Path path() {
    return file;
  }

  /** @throws IllegalStateException for a damaged file, UncheckedIOException for one that cannot be read */
  public Optional<TokenSet> read() {
    Optional<byte[]> bytes = WholeFile.readIfPresent(vfs, file, "the token set");
    if (bytes.isEmpty()) return Optional.empty();
    try {
      return Optional.of(TokenSetCodec.decode(bytes.get()));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("the token set " + file + " is damaged: " + e.getMessage(), e);
    }
  }

  public void write(TokenSet set) {
    try {
      vfs.createDirectories(Objects.requireNonNull(file.toAbsolutePath().getParent(), "a file is in a directory"));
      WholeFile.write(vfs, file, TokenSetCodec.encode(set));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the token set " + file + ": " + e.getMessage(), e);
    }
  }
}
