package dev.shale.testkit.netns;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes what earlier runs left behind when their JVM was killed before {@code close()}: the
 * namespaces, links and node processes of networks whose names carry the PID of a JVM that is
 * no longer running. A live PID's network belongs to a running test and is left alone.
 */
final class StaleNetworks {
  // NamespaceNetwork's names: namespaces "shale-<pid>-<k>-<i>", links "sh<pid>x<k>b" and "sh<pid>x<k>v<i>".
  private static final Pattern NAMESPACE = Pattern.compile("^(shale-(\\d+)-\\d+-\\d+)\\b", Pattern.MULTILINE);
  private static final Pattern LINK = Pattern.compile("^\\d+: (sh(\\d+)x\\d+[bv]\\d*)[@:]", Pattern.MULTILINE);

  private StaleNetworks() {}

  /** Removes every stale network; returns what it removed, for the log. */
  static List<String> remove() {
    List<String> removed = new ArrayList<>();
    Matcher namespaces = NAMESPACE.matcher(HostCommand.run("ip", "netns", "list"));
    while (namespaces.find()) {
      if (isRunning(namespaces.group(2))) continue;
      String namespace = namespaces.group(1);
      killProcessesIn(namespace);
      HostCommand.attempt("ip", "netns", "del", namespace);
      removed.add(namespace);
    }
    Matcher links = LINK.matcher(HostCommand.run("ip", "-o", "link", "show"));
    while (links.find()) {
      if (isRunning(links.group(2))) continue;
      HostCommand.attempt("ip", "link", "del", links.group(1));
      removed.add(links.group(1));
    }
    return removed;
  }

  /** Kills, by PID, the processes left in one of our namespaces: node processes a killed run started. */
  static void killProcessesIn(String namespace) {
    for (String pid : HostCommand.attempt("ip", "netns", "pids", namespace).output().split("\\s+")) {
      if (pid.matches("\\d+")) ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  private static boolean isRunning(String pid) {
    return ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
  }
}
