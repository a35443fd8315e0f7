package dev.shale.load;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.jspecify.annotations.Nullable;

/**
 * Sends async-profiler commands to a running JVM: attaches through the JDK attach API and loads
 * the library from the async-profiler jar (Maven Central) as an agent with the command as its
 * arguments. Each command attaches anew, so nothing is held between the start and the stop.
 */
final class AttachedAgent implements NodeProfiler.Agent {
  /** Where the jar keeps the linux-x64 library. */
  static final String LIBRARY_RESOURCE = "/linux-x64/libasyncProfiler.so";

  private final long pid;

  AttachedAgent(long pid) {
    this.pid = pid;
  }

  @Override
  public void command(String arguments) throws IOException, LoadException {
    Path library = Library.path();
    VirtualMachine vm;
    try {
      vm = VirtualMachine.attach(Long.toString(pid));
    } catch (AttachNotSupportedException e) {
      throw new LoadException("cannot attach to pid " + pid + ": " + e.getMessage(), e);
    }
    try {
      vm.loadAgentPath(library.toString(), arguments);
    } catch (AgentInitializationException e) {
      throw new LoadException("async-profiler refused '" + arguments + "' (code " + e.returnValue() + ")", e);
    } catch (AgentLoadException e) {
      throw new LoadException("cannot load async-profiler into pid " + pid + ": " + e.getMessage(), e);
    } finally {
      vm.detach();
    }
  }

  /** libasyncProfiler.so copied once out of the jar into a temporary directory. */
  private static final class Library {
    private static @Nullable Path path; // null until first copied

    static synchronized Path path() throws IOException {
      if (path != null) return path;
      Path dir = Files.createTempDirectory("shale-async-profiler");
      Path lib = dir.resolve("libasyncProfiler.so");
      try (InputStream in = AttachedAgent.class.getResourceAsStream(LIBRARY_RESOURCE)) {
        if (in == null) throw new IOException("the async-profiler jar has no " + LIBRARY_RESOURCE + " on the class path");
        Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
      }
      lib.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      path = lib;
      return lib;
    }
  }
}
