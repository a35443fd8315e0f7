package dev.shale.app;

import dev.shale.storage.StorageException;
import dev.shale.storage.inspect.StoreInspector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** What the {@code shale tool} commands share: taking a data directory, and saying why not in one line. */
final class OfflineStore {
  private OfflineStore() {}

  /**
   * {@code directory} taken for reading; a usage error if it is not a directory, a
   * {@link ToolFailure} if a node holds it.
   */
  static StoreInspector open(CommandSpec spec, Path directory) {
    if (!Files.isDirectory(directory)) {
      throw new ParameterException(spec.commandLine(), directory + ": no such directory (give a node's --data directory)");
    }
    try {
      return StoreInspector.open(directory);
    } catch (StorageException e) {
      throw new ToolFailure(String.valueOf(e.getMessage()), e);
    } catch (IOException e) {
      throw failed("reading " + directory, e);
    }
  }

  static ToolFailure failed(String what, Exception e) {
    return new ToolFailure(what + " failed: " + e.getMessage(), e);
  }

  /**
   * Keeps the engine's log quiet while a tool runs, and restores it on close: the tools report
   * every damage they find themselves, and the engine's readers also log each at ERROR as they
   * throw it (for a node's log), which would say everything twice.
   */
  static final class QuietEngineLog implements AutoCloseable {
    private final Logger log = Logger.getLogger("dev.shale.storage"); // held: JUL holds loggers weakly
    private final @Nullable Level previous = log.getLevel();

    QuietEngineLog() {
      log.setLevel(Level.OFF);
    }

    @Override
    public void close() {
      log.setLevel(previous);
    }
  }
}
