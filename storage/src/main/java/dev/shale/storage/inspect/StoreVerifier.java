package dev.shale.storage.inspect;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.EngineHealth;
import dev.shale.storage.Vfs;
import dev.shale.storage.core.DirectoryListing;
import dev.shale.storage.core.LogDamage;
import dev.shale.storage.core.RetiredSegments;
import dev.shale.storage.core.SnapshotAccounting;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.io.RecordReader.TornTail;
import dev.shale.storage.manifest.ManifestLoader;
import dev.shale.storage.manifest.ManifestRecords;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.table.TableInspection;
import dev.shale.storage.table.TableMeta;
import dev.shale.storage.wal.LogReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import org.jspecify.annotations.Nullable;

/**
 * Checks a stopped store the way opening it would (docs/format.md, "Recovery at open" and "Damage
 * found at open"), and more: every manifest record, every table's footer, index, filter and every
 * data block (a read checks a data block only when it needs it), every record of the log
 * segments. Where opening stops at the first refusal, this lists every problem and goes on.
 */
final class StoreVerifier {
  /*
   * Every check is the engine's own: ManifestLoader chooses the manifest and checks its snapshot
   * (SnapshotInvariants), SnapshotAccounting checks it accounts for the directory, TableInspection
   * opens tables with Table and checks identity with TableIdentity and blocks with the readers of
   * a scan, LogReader frames and decodes records and LogDamage tells a torn append from damage.
   * So a change of a format or of a rule of opening reaches verify by itself. What is here is
   * only the order of the steps and the collecting of what they throw.
   */

  private final Vfs vfs;
  private final Path directory;
  private final Set<String> seen = new HashSet<>(); // findings by text: one check may be reached twice
  private final List<Finding> findings = new ArrayList<>();
  private @Nullable Path refusedByLoad; // the manifest whose damage ManifestLoader reported, or null
  private int manifests;
  private int tables;
  private long tableRecords;
  private int segments;
  private long logRecords;
  private long bytes;

  StoreVerifier(Vfs vfs, Path directory) {
    this.vfs = vfs;
    this.directory = directory;
  }

  VerifyReport run() throws IOException {
    DirectoryListing listing = DirectoryListing.scan(vfs, directory);
    List<Long> manifestNumbers = ManifestLoader.manifestNumbers(vfs, directory);
    manifestNumbers.sort(Comparator.naturalOrder());
    ManifestLoader.@Nullable Loaded chosen = choose(listing, manifestNumbers);
    for (long number : manifestNumbers) checkManifest(number, chosen);
    if (chosen != null) {
      ManifestSnapshot snapshot = chosen.snapshot();
      for (CorruptionException e : SnapshotAccounting.problems(directory, chosen.fileNumber(), snapshot, chosen.listsSegments(), listing)) {
        damage(e, -1);
      }
      CorruptionException skipped = RetiredSegments.problem(vfs, directory, chosen, listing);
      if (skipped != null) damage(skipped, -1);
      checkNamedTables(snapshot, listing);
      checkLogs(listing, snapshot.logNumber(), snapshot.sealedSizes());
    } else {
      // No snapshot to hold them against: each file's own checks still tell damage.
      for (long number : listing.tables()) checkTable(number, null);
      checkLogs(listing, 0, Map.of());
    }
    for (Path temporary : listing.temporaries()) {
      add(Finding.note(temporary, -1, "a file being written when the store stopped; opening deletes it"));
    }
    return new VerifyReport(directory, findings, manifests, tables, tableRecords, segments, logRecords, bytes);
  }

  // The manifest opening would choose, or null (none, or opening would refuse: reported).
  private ManifestLoader.@Nullable Loaded choose(DirectoryListing listing, List<Long> manifestNumbers)
      throws IOException {
    try {
      Optional<ManifestLoader.Loaded> loaded = ManifestLoader.load(vfs, directory);
      if (loaded.isPresent()) return loaded.get();
    } catch (CorruptionException e) {
      damage(e, -1);
      refusedByLoad = e.file();
      return null;
    }
    if (listing.holdsData(vfs, directory)) {
      add(Finding.damage(directory, -1, "holds " + listing.logs().size() + " .wal and " + listing.tables().size()
          + " .sst files but no valid MANIFEST" + (manifestNumbers.isEmpty() ? "" : " (none of "
          + manifestNumbers.size() + " holds a valid record)") + ": opening refuses it rather than guess which"
          + " files make up the store"));
    } else if (manifestNumbers.isEmpty() && listing.logs().isEmpty()) {
      add(Finding.damage(directory, -1, "holds no Shale store: no MANIFEST, no table, no log segment (is it the"
          + " node's --data directory?)"));
    } else {
      add(Finding.note(directory, -1, "holds no record: a new store whose first open stopped before its first"
          + " manifest was written"));
    }
    return null;
  }

  private void checkManifest(long number, ManifestLoader.@Nullable Loaded chosen) throws IOException {
    Path file = directory.resolve(FileNames.manifest(number));
    // Manifests below the chosen one are older states, which opening deletes: their damage is no loss.
    boolean superseded = chosen != null && number < chosen.fileNumber();
    manifests++;
    bytes += vfs.size(file);
    ManifestRecords records;
    try {
      records = ManifestRecords.read(vfs, file);
    } catch (CorruptionException e) {
      add(superseded ? Finding.note(file, -1, e.problem()) : fromException(e, -1));
      return;
    }
    for (ManifestRecords.RecordAt record : records.records()) {
      String problem = record.problem();
      if (problem != null) add(new Finding(file, -1, problem, !superseded));
    }
    TornTail tail = records.tail();
    if (tail == null) return;
    if (tail.followedByValidRecords()) {
      if (file.equals(refusedByLoad)) return; // reported already, in opening's words
      add(new Finding(file, tail.offset(), "a bad record (" + tail.reason() + ") followed by " + tail.validRecordsAfter()
          + " valid records from offset " + tail.nextValidOffset() + ": not a torn append", !superseded));
    } else if (records.headerMissing()) {
      add(Finding.note(file, -1, "holds no record (its header was never written); opening ignores it"));
    } else if (records.records().isEmpty()) {
      add(Finding.note(file, tail.offset(), "holds no valid record (" + tail.droppedBytes() + " bytes: " + tail.reason()
          + "); opening falls back to an older manifest"));
    } else {
      add(Finding.note(file, tail.offset(), "its last " + tail.droppedBytes() + " bytes are a torn append ("
          + tail.reason() + "), which opening ignores: the record before it is the state"));
    }
  }

  private void checkNamedTables(ManifestSnapshot snapshot, DirectoryListing listing) throws IOException {
    Set<Long> named = new HashSet<>();
    for (TableMeta meta : snapshot.tables()) {
      named.add(meta.fileNumber());
      if (listing.tables().contains(meta.fileNumber())) checkTable(meta.fileNumber(), meta); // missing: reported
    }
    for (long number : listing.tables()) {
      if (named.contains(number)) continue;
      add(Finding.note(directory.resolve(FileNames.table(number)), -1, "named by no manifest snapshot: left by a"
          + " flush or compaction that did not commit; opening deletes it"));
    }
  }

  // meta: what the manifest says the table is, or null when there is no manifest to compare with.
  private void checkTable(long number, @Nullable TableMeta meta) throws IOException {
    Path file = directory.resolve(FileNames.table(number));
    tables++;
    bytes += vfs.size(file);
    try (TableInspection table = TableInspection.open(vfs, file, number)) {
      if (meta != null) {
        try {
          table.checkIsTable(meta);
        } catch (CorruptionException e) {
          damage(e, table.footerOffset());
        }
      }
      String filterDamage = table.filterDamage();
      if (filterDamage != null) {
        add(Finding.damage(file, table.filterOffset(), "Bloom filter unusable: " + filterDamage + " (opening serves"
            + " the table without it; a compaction that rewrites the table writes a new one)"));
      }
      TableInspection.Walked walked = table.walk(new TableInspection.BlockVisitor() {
        @Override
        public void record(int block, Entry record) {}

        @Override
        public void damaged(int block, CorruptionException damage) {
          damage(damage, table.blockOffset(block));
        }
      });
      tableRecords += walked.records();
    } catch (CorruptionException e) {
      damage(e, -1); // its footer or index: nothing else of it can be read
    }
  }

  private void checkLogs(DirectoryListing listing, long logNumber, Map<Long, Long> sealedSizes) throws IOException {
    for (long number : listing.logs().headSet(logNumber)) {
      add(Finding.note(directory.resolve(FileNames.log(number)), -1, "below the manifest's log_number " + logNumber
          + ": its records are in tables, and opening deletes it"));
    }
    SortedSet<Long> replayed = listing.logs().tailSet(logNumber);
    LogDamage judge = LogDamage.forSegments(vfs, directory, replayed, sealedSizes);
    for (long number : replayed) checkSegment(number, judge);
  }

  private void checkSegment(long number, LogDamage judge) throws IOException {
    Path file = directory.resolve(FileNames.log(number));
    segments++;
    bytes += vfs.size(file);
    try (LogReader reader = LogReader.open(vfs, file)) {
      try {
        for (Entry record = reader.next(); record != null; record = reader.next()) logRecords++;
      } catch (CorruptionException e) {
        damage(e, -1); // a record whose crc holds but that Shale did not write: opening refuses it
        return;
      }
      TornTail tail = reader.tornTail();
      try {
        judge.check(file, number, tail, reader.headerMissing());
      } catch (CorruptionException e) {
        damage(e, -1);
        return;
      }
      EngineHealth.Damage loss = LogDamage.acceptedLoss(file, tail);
      if (loss != null) {
        add(Finding.damage(file, -1, loss.problem() + "; a node opening the store drops them, cuts them off the"
            + " segment and reports the loss (/v0/status \"damage\") until it restarts"));
      } else if (tail != null && reader.headerMissing()) {
        add(Finding.note(file, -1, "holds no record (created, its header never written before a crash)"));
      } else if (tail != null) {
        add(Finding.note(file, tail.offset(), "torn append of " + tail.droppedBytes() + " bytes (" + tail.reason()
            + "): a write cut short by a crash, never acknowledged; opening cuts it off"));
      }
    } catch (CorruptionException e) {
      damage(e, -1); // its header: another kind of file or format version
    }
  }

  private void damage(CorruptionException e, long offset) {
    add(fromException(e, offset));
  }

  // The engine's messages name the offset themselves where they know it; it is not said twice.
  private static Finding fromException(CorruptionException e, long offset) {
    return Finding.damage(e.file(), e.problem().contains("offset") ? -1 : offset, e.problem());
  }

  private void add(Finding finding) {
    if (seen.add(finding.file() + "\n" + finding.problem())) findings.add(finding);
  }
}
