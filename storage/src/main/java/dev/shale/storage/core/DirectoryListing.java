package dev.shale.storage.core;

import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.io.RecordFormat;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What a data directory holds at open, by kind (docs/format.md, "The data directory"). Names
 * that are not Shale's are not listed: they are left alone. Public for the offline tools
 * ({@code dev.shale.storage.inspect}), which read a directory as opening does.
 *
 * @param logs numbers of {@code <n>.wal} files, ascending
 * @param tables numbers of {@code <n>.sst} files, ascending
 * @param temporaries {@code *.tmp} files
 * @param highestNumber the highest file number of any kind, or 0
 */
public record DirectoryListing(
    SortedSet<Long> logs, SortedSet<Long> tables, List<Path> temporaries, long highestNumber) {

  public static DirectoryListing scan(Vfs vfs, Path directory) throws IOException {
    SortedSet<Long> logs = new TreeSet<>();
    SortedSet<Long> tables = new TreeSet<>();
    List<Path> temporaries = new ArrayList<>();
    long highest = 0;
    for (Path file : vfs.list(directory)) {
      Optional<FileNames.Parsed> parsed = FileNames.parse(file.getFileName().toString());
      if (parsed.isEmpty()) continue;
      FileNames.Parsed p = parsed.get();
      switch (p.kind()) {
        case LOG -> logs.add(p.number());
        case TABLE -> tables.add(p.number());
        case TEMP -> temporaries.add(file);
        case MANIFEST -> {}
      }
      highest = Math.max(highest, p.number());
    }
    return new DirectoryListing(logs, tables, temporaries, highest);
  }

  /**
   * Whether the directory holds a store's data: a table, or a log segment longer than its header
   * (docs/format.md, "Manifest": without a manifest such a directory is refused, not taken for a
   * new store; a segment of at most a header is a first open that died before its manifest).
   */
  public boolean holdsData(Vfs vfs, Path directory) throws IOException {
    if (!tables.isEmpty()) return true;
    for (long number : logs) {
      if (vfs.size(directory.resolve(FileNames.log(number))) > RecordFormat.HEADER_BYTES) return true;
    }
    return false;
  }
}
