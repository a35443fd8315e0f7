package dev.shale.storage.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Forcing directory entries to disk: a new file is durable only once its directory is. */
public final class Fsync {
  private Fsync() {}

  /** fsyncs {@code directory}, so files created, renamed or deleted in it stay so after a crash. */
  public static void directory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
