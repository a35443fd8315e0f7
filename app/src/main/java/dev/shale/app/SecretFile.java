package dev.shale.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes a file holding a secret (the cluster secret, an admin secret, an API token): the
 * secret's bytes, without trailing white space. Messages name the option that gave the file.
 */
final class SecretFile {
  private static final System.Logger LOG = System.getLogger("dev.shale.app.shale");
  private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

  private SecretFile() {}

  /**
   * The secret that {@code --cluster-secret} ({@code secret}) or {@code --cluster-secret-file}
   * ({@code file}) gives, null when neither is given; both, or a file that cannot be read, is
   * {@code error}'s exception.
   */
  static byte @Nullable [] fromOptions(@Nullable String secret, @Nullable Path file,
      Function<String, ? extends RuntimeException> error) {
    if (secret != null && file != null) throw error.apply("give either --cluster-secret or --cluster-secret-file, not both");
    if (file != null) return read(file, "--cluster-secret-file", error);
    return secret == null ? null : secret.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The secret in {@code file}, given by the command-line option {@code option}; a file that
   * cannot be read is {@code error}'s exception, naming the option.
   */
  static byte[] read(Path file, String option, Function<String, ? extends RuntimeException> error) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
      warnIfShared(file, option);
    } catch (IOException e) {
      throw error.apply("cannot read " + option + " " + file + ": " + e);
    }
    int end = bytes.length;
    while (end > 0 && Character.isWhitespace(bytes[end - 1])) end--;
    return Arrays.copyOf(bytes, end);
  }

  /** Writes {@code secret} to a new file {@code file} that only its owner may read (0600). */
  static void write(Path file, byte[] secret) throws IOException {
    Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    Files.write(file, secret);
  }

  private static void warnIfShared(Path file, String option) throws IOException {
    try {
      Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
      if (!OWNER_ONLY.containsAll(permissions)) {
        LOG.log(System.Logger.Level.WARNING, option + " " + file + " is readable by others ("
            + PosixFilePermissions.toString(permissions) + "); chmod 600 it");
      }
    } catch (UnsupportedOperationException e) {
      // Not a POSIX file system: nothing to check.
    }
  }
}
