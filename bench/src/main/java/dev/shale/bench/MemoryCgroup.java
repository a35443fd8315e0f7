package dev.shale.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A memory cgroup of its own, made under the cgroup this process is in, with a limit on memory:
 * how the benchmarks put a process (this JVM, or a node) where a store larger than memory is what
 * it is on a real host. Linux charges a cgroup for its processes' memory and for the page cache of
 * the files they read and write, and reclaims that page cache first once the limit is near; so
 * a store several times the limit is read from the disk, not from a page cache the size of the
 * machine.
 *
 * <p>Works with cgroup v1 (the memory controller's {@code memory.limit_in_bytes}, as on the
 * machine the benchmarks ran on) and v2 ({@code memory.max}). Making one needs the right to write
 * under the process's cgroup (root, or a delegated subtree); a clear IOException says when it is
 * missing. {@link #close} moves this process back out if it entered, and removes the cgroup.
 */
public final class MemoryCgroup implements AutoCloseable {
  private static final Path PROC_SELF_CGROUP = Path.of("/proc/self/cgroup");
  private static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");

  private final Path directory;
  private final Path parent;
  private final boolean v2;
  private final long limitBytes;

  private MemoryCgroup(Path directory, Path parent, boolean v2, long limitBytes) {
    this.directory = directory;
    this.parent = parent;
    this.v2 = v2;
    this.limitBytes = limitBytes;
  }

  /**
   * A new cgroup named {@code name} under this process's memory cgroup, limited to {@code
   * limitBytes} of memory (page cache included; and no swap beyond it where the kernel counts
   * swap).
   */
  public static MemoryCgroup create(String name, long limitBytes) throws IOException {
    if (limitBytes < 1 << 20) throw new IllegalArgumentException("a memory limit of at least 1 MiB: " + limitBytes);
    Path parent = ownCgroup();
    boolean v2 = Files.exists(parent.resolve("memory.max")) || Files.exists(parent.resolve("cgroup.controllers"))
        && !Files.exists(parent.resolve("memory.limit_in_bytes"));
    Path directory = parent.resolve(name);
    try {
      Files.createDirectories(directory);
      Files.writeString(directory.resolve(v2 ? "memory.max" : "memory.limit_in_bytes"), Long.toString(limitBytes));
    } catch (IOException e) {
      throw new IOException("cannot make a memory cgroup under " + parent + " (" + e + "): it takes root, or a "
          + "delegated cgroup", e);
    }
    return new MemoryCgroup(directory, parent, v2, limitBytes);
  }

  /** Moves process {@code pid}, all its threads, into this cgroup. */
  public void enter(long pid) throws IOException {
    Files.writeString(directory.resolve("cgroup.procs"), Long.toString(pid));
  }

  /** Moves this process into this cgroup: its memory, and the page cache of what it reads and writes from now on, count. */
  public void enterThisProcess() throws IOException {
    enter(ProcessHandle.current().pid());
  }

  public long limitBytes() {
    return limitBytes;
  }

  public Path directory() {
    return directory;
  }

  /** The memory charged to the cgroup now (its processes' and the page cache's). */
  public long usageBytes() throws IOException {
    return readLong(v2 ? "memory.current" : "memory.usage_in_bytes");
  }

  /** The most memory charged to the cgroup at once so far, where the kernel keeps it (else empty). */
  public Optional<Long> peakBytes() throws IOException {
    String file = v2 ? "memory.peak" : "memory.max_usage_in_bytes";
    return Files.exists(directory.resolve(file)) ? Optional.of(readLong(file)) : Optional.empty();
  }

  /** How many times a process of the cgroup was killed for want of memory (the OOM killer). */
  public long oomKills() throws IOException {
    if (v2) {
      for (String line : Files.readAllLines(directory.resolve("memory.events"))) {
        if (line.startsWith("oom_kill ")) return Long.parseLong(line.substring("oom_kill ".length()).trim());
      }
      return 0;
    }
    for (String line : Files.readAllLines(directory.resolve("memory.oom_control"))) {
      if (line.startsWith("oom_kill ")) return Long.parseLong(line.substring("oom_kill ".length()).trim());
    }
    return 0;
  }

  /** Moves this process back to the parent cgroup if it is here, and removes the cgroup (once its processes left). */
  @Override
  public void close() {
    try {
      List<String> procs = Files.readAllLines(directory.resolve("cgroup.procs"));
      String self = Long.toString(ProcessHandle.current().pid());
      if (procs.contains(self)) Files.writeString(parent.resolve("cgroup.procs"), self);
      Files.deleteIfExists(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("removing the memory cgroup " + directory + " failed", e);
    }
  }

  private long readLong(String file) throws IOException {
    return Long.parseLong(Files.readString(directory.resolve(file)).trim());
  }

  /** The directory of this process's memory cgroup: v1's memory hierarchy, or v2's unified one. */
  static Path ownCgroup() throws IOException {
    String v2Path = null;
    for (String line : Files.readAllLines(PROC_SELF_CGROUP)) {
      String[] parts = line.split(":", 3);
      if (parts.length < 3) continue;
      if (List.of(parts[1].split(",")).contains("memory")) return under(CGROUP_ROOT.resolve("memory"), parts[2]);
      if (parts[0].equals("0") && parts[1].isEmpty()) v2Path = parts[2];
    }
    if (v2Path != null) {
      // A v2-only host mounts the unified hierarchy at /sys/fs/cgroup; a hybrid one under unified/.
      Path root = Files.exists(CGROUP_ROOT.resolve("cgroup.controllers")) ? CGROUP_ROOT : CGROUP_ROOT.resolve("unified");
      return under(root, v2Path);
    }
    throw new IOException("no memory cgroup in " + PROC_SELF_CGROUP + ": this kernel has no memory controller mounted");
  }

  private static Path under(Path root, String cgroupPath) {
    String relative = cgroupPath.startsWith("/") ? cgroupPath.substring(1) : cgroupPath;
    return relative.isEmpty() ? root : root.resolve(relative);
  }
}
