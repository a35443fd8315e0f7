package dev.shale.testkit.netns;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Stops and continues a node process by its PID (SIGSTOP / SIGCONT), as a node that hangs and comes back. */
public final class NodeSignals {
  private NodeSignals() {}

  /** Sends SIGSTOP: the process keeps its sockets, which accept and buffer but never answer. */
  public static void stop(long pid) {
    HostCommand.run("kill", "-STOP", Long.toString(pid));
  }

  /** Sends SIGCONT. */
  public static void resume(long pid) {
    HostCommand.run("kill", "-CONT", Long.toString(pid));
  }

  /** Whether the process is stopped by a signal now (state T in {@code /proc/<pid>/stat}). */
  public static boolean isStopped(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // pid (comm) state ...: the command may hold spaces and parentheses, so read after the last ')'.
      return stat.substring(stat.lastIndexOf(')') + 2).startsWith("T");
    } catch (IOException e) {
      return false;
    }
  }
}
