package dev.shale.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The table files ({@code *.sst}) of a store directory that a process holds open, as Linux lists
 * its descriptors in {@code /proc/<pid>/fd}: an engine keeps one descriptor per open table, so a
 * table it still reads (for a scan, say) shows here until the last reader lets it go, and a table
 * deleted meanwhile shows with its old name. For tests of what a node pins.
 */
public final class OpenTables {
  private OpenTables() {}

  /** The tables of {@code dir} that process {@code pid} holds open now. */
  public static Set<Path> of(long pid, Path dir) {
    try {
      Path real = dir.toRealPath();
      Set<Path> tables = new TreeSet<>();
      try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/" + pid + "/fd"))) {
        for (Path fd : fds) {
          String target;
          try {
            target = Files.readSymbolicLink(fd).toString();
          } catch (IOException closedMeanwhile) {
            continue;
          }
          if (target.endsWith(" (deleted)")) target = target.substring(0, target.length() - " (deleted)".length());
          Path file = Path.of(target);
          if (real.equals(file.getParent()) && target.endsWith(".sst")) tables.add(file);
        }
      }
      return tables;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The tables of {@code dir} this process holds open now. */
  public static Set<Path> ofThisProcess(Path dir) {
    return of(ProcessHandle.current().pid(), dir);
  }

  /** The tables in {@code dir} on disk now. */
  public static Set<Path> onDisk(Path dir) {
    try (Stream<Path> files = Files.list(dir.toRealPath())) {
      return files.filter(p -> p.toString().endsWith(".sst")).collect(Collectors.toCollection(TreeSet::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
