package dev.shale.storage.core;

import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What a data directory holds at open, by kind (docs/format.md, "The data directory"). Names
 * that are not Shale's are not listed: they are left alone.
 *
 * @param logs numbers of {@code <n>.wal} files, ascending
 * @param tables numbers of {@code <n>.sst} files, ascending
 * @param temporaries {@code *.tmp} files
 * @param highestNumber the highest file number of any kind, or 0
 */
record DirectoryListing(
    SortedSet<Long> logs, SortedSet<Long> tables, List<Path> temporaries, long highestNumber) {

  static DirectoryListing scan(Vfs vfs, Path directory) throws IOException {
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
}
