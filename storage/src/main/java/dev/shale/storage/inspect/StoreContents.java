package dev.shale.storage.inspect;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.StorageException;
import dev.shale.storage.Vfs;
import dev.shale.storage.core.DirectoryListing;
import dev.shale.storage.core.LogDamage;
import dev.shale.storage.core.RetiredSegments;
import dev.shale.storage.core.SnapshotAccounting;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.manifest.ManifestLoader;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.table.Table;
import dev.shale.storage.table.TableIdentity;
import dev.shale.storage.table.TableMeta;
import dev.shale.storage.wal.LogReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The records of a stopped store in a key range, as a node opening it would serve them
 * (docs/format.md, "Recovery at open", steps 1 and 2), read without opening it: the manifest's
 * tables, checked to be the tables it describes, and the records of the log segments it does not
 * cover, replayed into a sorted map of the range (no memtable, nothing written). A store opening
 * would refuse is refused here with the same error.
 *
 * <p>Memory: the logs' records in the range (at most the few memtables' worth the segments hold),
 * the tables' indexes and filters. Not thread safe; close it.
 */
final class StoreContents implements AutoCloseable {
  private final List<Table> tables = new ArrayList<>();
  private final List<TableMeta> metas = new ArrayList<>(); // metas.get(i) describes tables.get(i)
  // The winning record of each key of the range in the replayed segments (Entry.newer).
  private final NavigableMap<byte[], Entry> logged = new TreeMap<>(Keys.ORDER);

  private StoreContents() {}

  /**
   * The records of {@code directory} with keys in {@code [start, end)} ({@code end} null: to the
   * last key).
   *
   * @throws CorruptionException or StorageException, as opening would refuse the store
   */
  static StoreContents read(Vfs vfs, Path directory, byte[] start, byte @Nullable [] end) throws IOException {
    StoreContents contents = new StoreContents();
    try {
      contents.load(vfs, directory, start, end);
      return contents;
    } catch (IOException | RuntimeException e) {
      contents.close();
      throw e;
    }
  }

  private void load(Vfs vfs, Path directory, byte[] start, byte @Nullable [] end) throws IOException {
    DirectoryListing listing = DirectoryListing.scan(vfs, directory);
    Optional<ManifestLoader.Loaded> loaded = ManifestLoader.load(vfs, directory);
    long logNumber = 0;
    Map<Long, Long> sealedSizes = Map.of();
    if (loaded.isPresent()) {
      ManifestSnapshot snapshot = loaded.get().snapshot();
      List<CorruptionException> unaccounted =
          SnapshotAccounting.problems(directory, loaded.get().fileNumber(), snapshot, loaded.get().listsSegments(), listing);
      if (!unaccounted.isEmpty()) throw unaccounted.getFirst();
      CorruptionException skipped = RetiredSegments.problem(vfs, directory, loaded.get(), listing);
      if (skipped != null) throw skipped;
      for (TableMeta meta : snapshot.tables()) {
        if (overlaps(meta, start, end)) openTable(vfs, directory, meta);
      }
      logNumber = snapshot.logNumber();
      sealedSizes = snapshot.sealedSizes();
    } else if (listing.holdsData(vfs, directory)) {
      throw new StorageException(directory + " holds " + listing.logs().size() + " .wal and "
          + listing.tables().size() + " .sst files but no valid MANIFEST: a node refuses to open it");
    }
    replayLogs(vfs, directory, listing.logs().tailSet(logNumber), sealedSizes, start, end);
  }

  private void openTable(Vfs vfs, Path directory, TableMeta meta) throws IOException {
    Table table = Table.open(vfs, directory.resolve(FileNames.table(meta.fileNumber())), meta.fileNumber());
    try {
      TableIdentity.check(table, meta);
    } catch (RuntimeException e) {
      table.close();
      throw e;
    }
    tables.add(table);
    metas.add(meta);
  }

  private void replayLogs(Vfs vfs, Path directory, SortedSet<Long> segments, Map<Long, Long> sealedSizes, byte[] start,
      byte @Nullable [] end) throws IOException {
    LogDamage judge = LogDamage.forSegments(vfs, directory, segments, sealedSizes);
    for (long number : segments) {
      Path file = directory.resolve(FileNames.log(number));
      try (LogReader reader = LogReader.open(vfs, file)) {
        for (Entry record = reader.next(); record != null; record = reader.next()) {
          if (!inRange(record.key(), start, end)) continue;
          logged.merge(record.key(), record, Entry::newer);
        }
        judge.check(file, number, reader.tornTail(), reader.headerMissing());
      }
    }
  }

  /** The record of {@code key} that wins among the tables and the logs (a tombstone or an expired value too), or null. */
  @Nullable Entry get(byte[] key) {
    Entry best = logged.get(key);
    for (Table table : tables) {
      if (best != null && table.maxVersion() < best.version()) continue; // it holds nothing newer
      Entry found = table.get(key);
      if (found != null) best = best == null ? found : Entry.newer(best, found);
    }
    return best;
  }

  /**
   * The sources of a merge of {@code [start, end)}: the logs' records, each level-0 table, and
   * each deeper level's tables read one after another (their ranges are disjoint), so a scan
   * holds one read-ahead window per level, not per table.
   */
  List<Iterator<Entry>> sources(byte[] start, byte @Nullable [] end) {
    List<Iterator<Entry>> sources = new ArrayList<>();
    NavigableMap<byte[], Entry> range = end == null ? logged.tailMap(start, true) : logged.subMap(start, true, end, false);
    sources.add(range.values().iterator());
    List<List<Table>> levels = new ArrayList<>();
    for (int i = 0; i < tables.size(); i++) {
      TableMeta meta = metas.get(i);
      if (!overlaps(meta, start, end)) continue;
      if (meta.level() == 0) {
        sources.add(tables.get(i).iterator(start, end));
        continue;
      }
      while (levels.size() <= meta.level()) levels.add(new ArrayList<>());
      levels.get(meta.level()).add(tables.get(i));
    }
    for (List<Table> level : levels) {
      if (level.isEmpty()) continue;
      level.sort((a, b) -> Keys.compare(metaOf(a).smallestKey(), metaOf(b).smallestKey()));
      sources.add(new TablesInTurn(level, start, end));
    }
    return sources;
  }

  private TableMeta metaOf(Table table) {
    return metas.get(tables.indexOf(table));
  }

  private static boolean overlaps(TableMeta meta, byte[] start, byte @Nullable [] end) {
    return Keys.compare(meta.largestKey(), start) >= 0 && (end == null || Keys.compare(meta.smallestKey(), end) < 0);
  }

  private static boolean inRange(byte[] key, byte[] start, byte @Nullable [] end) {
    return Keys.compare(key, start) >= 0 && (end == null || Keys.compare(key, end) < 0);
  }

  @Override
  public void close() {
    for (Table table : tables) table.close();
    tables.clear();
    metas.clear();
  }
}
