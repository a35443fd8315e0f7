package dev.shale.storage.inspect;

import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.file.Path;

/** Telling a directory from a file through a {@link Vfs}, which has no call for it. */
final class Directories {
  private Directories() {}

  /**
   * True if {@code path} is a directory that can be listed. For the offline tools' checks of
   * their argument only: it lists the whole directory.
   */
  static boolean isDirectory(Vfs vfs, Path path) {
    try {
      vfs.list(path);
      return true;
    } catch (IOException e) {
      return false; // missing, a file (NotDirectoryException), or unreadable
    }
  }
}
