package dev.shale.storage.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Opens the files the engine appends to. A seam: tests wrap the channel to inject I/O failures
 * (a full disk, a failed fsync) where the engine must stop pretending.
 */
@FunctionalInterface
public interface ChannelOpener {
  /** Creates {@code file}, which must not exist yet, for writing. */
  FileChannel createNew(Path file) throws IOException;

  ChannelOpener DEFAULT =
      file -> FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
}
