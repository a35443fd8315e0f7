package dev.shale.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What a report says about where it ran: cores, CPU, kernel, JVM, commit, date. */
record Environment(int nproc, String cpuModel, String kernel, String jvm, String commit, Instant date) {
  static Environment here() {
    return new Environment(machineProcessors(), readCpuModel(), read("/proc/sys/kernel/osrelease"),
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"), readCommit(), Instant.now());
  }

  /** The CPUs a process may run on (its affinity, as taskset sets it), e.g. "0" or "0-1"; "unknown" off Linux. */
  static String cpusAllowed(String pid) {
    try {
      return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
          .filter(l -> l.startsWith("Cpus_allowed_list:"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst().orElse("unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** A process's command line, its arguments separated by spaces (a class path shortened), or "unknown". */
  static String commandLine(long pid) {
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline"));
      String[] args = new String(raw, java.nio.charset.StandardCharsets.UTF_8).split("\0");
      for (int i = 1; i < args.length; i++) {
        if (args[i - 1].equals("-cp") || args[i - 1].equals("-classpath")) args[i] = "<class path>";
      }
      return String.join(" ", args).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** The machine's processors, not this process's share (the generator often runs under taskset). */
  private static int machineProcessors() {
    try {
      long count = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("processor")).count();
      return count > 0 ? (int) count : Runtime.getRuntime().availableProcessors();
    } catch (IOException e) {
      return Runtime.getRuntime().availableProcessors();
    }
  }

  private static String readCpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst().orElse("unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String read(String file) {
    try {
      return Files.readString(Path.of(file)).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** The working directory's git commit (with "+dirty" when it has changes), or "unknown". */
  private static String readCommit() {
    String head = git(List.of("git", "rev-parse", "--short=12", "HEAD"));
    if (head.isEmpty()) return "unknown";
    String dirty = git(List.of("git", "status", "--porcelain", "--untracked-files=no"));
    return dirty.isEmpty() ? head : head + "+dirty";
  }

  private static String git(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) return "";
      return out;
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }
}
