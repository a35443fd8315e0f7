package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.EngineHealth;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.HybridClock;
import dev.shale.storage.StorageException;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.io.RecordReader.TornTail;
import dev.shale.storage.manifest.Manifest;
import dev.shale.storage.manifest.ManifestLoader;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.memtable.Memtable;
import dev.shale.storage.table.BlockCache;
import dev.shale.storage.table.TableMeta;
import dev.shale.storage.util.Closeables;
import dev.shale.storage.wal.LogReader;
import dev.shale.storage.wal.LogWriter;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.HashMap;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;

/**
 * Opening a store's files, exactly as docs/format.md "Recovery at open" says: read the manifest,
 * open its tables, replay each log segment it does not cover into a frozen memtable kept with its
 * segment, move the clock past every version seen, and then write: a new empty log, a new
 * manifest naming it, and the deletion of what is no longer needed ({@link OpeningWrites}). On a
 * full disk those writes wait ({@link Writes.AwaitingSpace}) and the engine opens without them.
 * The caller holds the directory's LOCK.
 *
 * <p>Invariant: nothing in the directory is written, truncated or deleted until every check that
 * can refuse the store has passed, so a refusal leaves the directory byte for byte as it was
 * (docs/format.md, "Damage found at open").
 */
final class Recovery {
  /**
   * The store as recovery leaves it.
   *
   * @param levels the live tables by level, checked; the caller owns one reference to each
   * @param frozen the replayed log segments' memtables, newest first, for the flush thread; the
   *     caller owns one reference to each memtable
   * @param writes whether opening's writes are done, or wait for room
   * @param damage the damaged files found, which the engine serves around and reports
   * @param snapshot the snapshot of the new manifest, whose segments are the replayed ones kept
   *     (with their sealed sizes) and the new one
   */
  record Recovered(Manifest manifest, Levels levels, List<FrozenMemtable> frozen,
      Writes writes, FileNumbers fileNumbers, DamageRegistry damage, ManifestSnapshot snapshot) {

    /** Lets everything go when the engine cannot start after all. */
    void closeQuietly() {
      levels.all().forEach(SharedTable::release);
      frozen.forEach(f -> f.memtable().release());
      if (writes instanceof Writes.AwaitingSpace(OpeningWrites rest, var cause)) rest.abandon();
      if (writes instanceof Writes.Done(LogWriter log)) Closeables.closeQuietly(log, log.path(), LOG);
      Closeables.closeQuietly(manifest, "the manifest", LOG);
    }
  }

  /** A kept segment's torn tail, to cut off the file (docs/format.md, "Recovery at open", step 2). */
  private record TornTailCut(Path file, TornTail tail) {}

  /** How far opening's writes got. */
  sealed interface Writes {
    /** All done: the new manifest is durable, and {@code log} is the new segment. */
    record Done(LogWriter log) implements Writes {}

    /**
     * Not done for want of space ({@code cause}: ENOSPC or EDQUOT): {@code rest} does what is
     * left once there is room. The store's files are as they were, but for torn tails cut.
     */
    record AwaitingSpace(OpeningWrites rest, IOException cause) implements Writes {}
  }

  private static final System.Logger LOG = System.getLogger(Recovery.class.getName());
  /** The state of a directory with no manifest: an empty store. */
  private static final ManifestSnapshot NEW_STORE = new ManifestSnapshot(1, 0, 0, List.of(), List.of());

  private final Path directory;
  private final EngineOptions options;
  private final HybridClock clock;
  private final Vfs vfs;
  private final List<SharedTable> tables = new ArrayList<>();
  private final List<FrozenMemtable> frozen = new ArrayList<>(); // newest first
  // Found while checking, acted on only once every check has passed:
  private final List<TornTailCut> tornTails = new ArrayList<>();
  private final List<Path> headerlessSegments = new ArrayList<>(); // above log_number, last
  private final DamageRegistry damage = new DamageRegistry();

  private final BlockCache blockCache; // the engine's, which the tables opened here read through

  private Recovery(Path directory, EngineOptions options, HybridClock clock, BlockCache blockCache) {
    this.blockCache = blockCache;
    this.directory = directory;
    this.options = options;
    this.clock = clock;
    this.vfs = options.vfs();
  }

  static Recovered run(Path directory, EngineOptions options, HybridClock clock, BlockCache blockCache)
      throws IOException {
    Recovery recovery = new Recovery(directory, options, clock, blockCache);
    try {
      return recovery.recover();
    } catch (IOException | RuntimeException e) {
      recovery.tables.forEach(SharedTable::release);
      recovery.frozen.forEach(f -> f.memtable().release());
      throw e;
    }
  }

  private Recovered recover() throws IOException {
    // Steps 1 and 2: read and check. Every refusal is thrown from here, before any write.
    DirectoryListing listing = DirectoryListing.scan(vfs, directory);
    Optional<ManifestLoader.Loaded> loaded = loadManifest(listing);
    ManifestSnapshot base = loaded.map(ManifestLoader.Loaded::snapshot).orElse(NEW_STORE);
    if (loaded.isPresent()) {
      SnapshotAccounting.check(directory, loaded.get(), listing);
      RetiredSegments.check(vfs, directory, loaded.get(), listing);
    }
    FileNumbers numbers =
        new FileNumbers(Math.max(base.nextFileNumber(), listing.highestNumber() + 1));
    clock.recover(base.lastVersion());
    openTables(base.tables());
    Levels levels = Levels.of(tables);
    replayLogs(listing, base);

    // Steps 3 and 4: every check passed; only now does opening write.
    for (TornTailCut cut : tornTails) cutTornTail(cut.file(), cut.tail());
    for (Path segment : headerlessSegments) deleteBeforeANewerSegment(segment);
    long logNumber = numbers.allocate();
    List<TableMeta> metas = tables.stream().map(SharedTable::meta).toList();
    // The segments that must be on disk: the kept ones, oldest (log_number) first, each with the
    // size it has now (torn tails cut), as no write goes to it again; and the new one.
    List<Long> segments = new ArrayList<>();
    Map<Long, Long> sealedSizes = new HashMap<>();
    for (FrozenMemtable f : frozen.reversed()) {
      segments.add(f.logNumber());
      sealedSizes.put(f.logNumber(), vfs.size(directory.resolve(FileNames.log(f.logNumber()))));
    }
    segments.add(logNumber);
    // next_file_number: the manifest, numbered as it is written, goes above it (Manifest#commit).
    ManifestSnapshot snapshot = new ManifestSnapshot(
        numbers.peek(), segments.getFirst(), clock.current(), metas, segments, sealedSizes);
    OpeningWrites opening =
        new OpeningWrites(vfs, directory, snapshot, logNumber, obsoleteFiles(listing, snapshot));
    Manifest manifest = Manifest.unwritten(vfs, directory);
    Writes writes;
    try {
      writes = new Writes.Done(opening.run(manifest, numbers::allocate));
    } catch (IOException e) {
      if (!DiskSpace.isNoSpace(e)) {
        Closeables.closeQuietly(manifest, "the manifest", LOG);
        throw e;
      }
      writes = new Writes.AwaitingSpace(opening, e);
    } catch (RuntimeException e) {
      Closeables.closeQuietly(manifest, "the manifest", LOG);
      throw e;
    }
    logOpened(writes, manifest);
    return new Recovered(manifest, levels, List.copyOf(frozen), writes, numbers, damage, snapshot);
  }

  private void logOpened(Writes writes, Manifest manifest) {
    String contents = tables.size() + " tables, " + frozen.size() + " replayed log segments to flush";
    switch (writes) {
      case Writes.Done(LogWriter log) -> LOG.log(Level.INFO, directory + " opened: " + contents + ", log "
          + log.path().getFileName() + ", " + FileNames.manifest(manifest.fileNumber()) + ", last version "
          + clock.current());
      // DiskSpace logs the refusal of writes, with the cause, at WARNING.
      case Writes.AwaitingSpace awaiting -> LOG.log(Level.INFO, directory + " opened for reads: " + contents
          + ", last version " + clock.current() + "; " + awaiting.rest().undone() + " wait for room on the disk");
    }
  }

  // docs/format.md, "Manifest": a directory with no manifest is a new, empty store, unless it
  // holds .sst files or a .wal file longer than its header: then opening fails, rather than
  // guess. A segment of at most a header is a new store's first open that died before its
  // manifest (the segment is created first): it holds no record.
  private Optional<ManifestLoader.Loaded> loadManifest(DirectoryListing listing) throws IOException {
    Optional<ManifestLoader.Loaded> loaded = ManifestLoader.load(vfs, directory);
    if (loaded.isPresent()) {
      LOG.log(Level.INFO, directory + ": state from " + FileNames.manifest(loaded.get().fileNumber()));
      return loaded;
    }
    if (listing.holdsData(vfs, directory)) {
      List<String> invalid =
          ManifestLoader.manifestNumbers(vfs, directory).stream().sorted().map(FileNames::manifest).toList();
      String found = invalid.isEmpty() ? "" : " (" + String.join(", ", invalid) + " hold no valid record)";
      throw new StorageException(directory + " holds " + listing.logs().size() + " .wal and "
          + listing.tables().size() + " .sst files but no valid MANIFEST" + found + ": refusing to"
          + " open it rather than guess which of them make up the store; nothing was deleted");
    }
    return Optional.empty();
  }

  private void openTables(List<TableMeta> metas) throws IOException {
    for (TableMeta meta : metas) {
      Path file = directory.resolve(FileNames.table(meta.fileNumber()));
      tables.add(SharedTable.openServingAroundDamage(vfs, file, meta, damage, blockCache));
      clock.recover(meta.maxVersion());
    }
    tables.sort(Comparator.comparingLong(SharedTable::fileNumber).reversed());
  }

  // Each segment from log_number on is replayed into a frozen memtable kept with it, just as the
  // engine held them before it stopped: opening writes no table, so it needs next to no disk
  // space (a node whose disk filled up must still start), and the flush thread writes them out
  // once the engine runs (RocksDB's avoid_flush_during_recovery). Damage rather than a torn tail
  // makes it throw (LogDamage). A torn tail is noted, and cut off its segment (which is kept) once
  // every segment is checked: left there, it would sit before the segments this open starts,
  // where the next open would take it for damage.
  // A tail that is not one record cut short is dropped the same way, and reported as damage.
  private void replayLogs(DirectoryListing listing, ManifestSnapshot base) throws IOException {
    long logNumber = base.logNumber();
    SortedSet<Long> segments = listing.logs().tailSet(logNumber);
    LogDamage damageCheck = LogDamage.forSegments(vfs, directory, segments, base.sealedSizes());
    for (long number : segments) {
      Path file = directory.resolve(FileNames.log(number));
      Memtable memtable = new Memtable(options.memtableSizeBytes());
      TornTail tail;
      boolean headerMissing;
      try (LogReader reader = LogReader.open(vfs, file)) {
        for (Entry entry = reader.next(); entry != null; entry = reader.next()) {
          clock.recover(entry.version());
          memtable.add(entry);
        }
        tail = reader.tornTail();
        headerMissing = reader.headerMissing();
        damageCheck.check(file, number, tail, headerMissing);
        EngineHealth.Damage loss = LogDamage.acceptedLoss(file, tail);
        if (loss != null) damage.report(loss);
      } catch (IOException | RuntimeException e) {
        memtable.release();
        throw e;
      }
      LOG.log(Level.INFO, "replayed " + memtable.sizeBytes() + " bytes of records from " + file);
      if (headerMissing && number > logNumber) headerlessSegments.add(file);
      if (memtable.isEmpty()) {
        memtable.release(); // nothing to keep: the segment goes with the obsolete files
        continue;
      }
      frozen.addFirst(new FrozenMemtable(memtable, number));
      if (tail != null) tornTails.add(new TornTailCut(file, tail));
    }
  }

  // Only once the reader's mapping is gone: a mapped page past a file's end cannot be read.
  private void cutTornTail(Path file, TornTail tail) throws IOException {
    vfs.truncate(file, tail.offset());
    LOG.log(Level.WARNING, file + ": cut its torn tail of " + tail.droppedBytes()
        + " bytes at offset " + tail.offset() + " (" + tail.reason() + ")");
  }

  // docs/format.md, "Recovery at open", step 4: deleted only once the new manifest is durable.
  private List<Path> obsoleteFiles(DirectoryListing listing, ManifestSnapshot snapshot) {
    Set<Long> live = new HashSet<>();
    for (TableMeta t : snapshot.tables()) live.add(t.fileNumber());
    Set<Long> kept = new HashSet<>();
    for (FrozenMemtable f : frozen) kept.add(f.logNumber());
    List<Path> obsolete = new ArrayList<>();
    for (long number : listing.logs()) {
      if (!kept.contains(number)) obsolete.add(directory.resolve(FileNames.log(number)));
    }
    obsolete.addAll(listing.temporaries());
    for (long number : listing.tables()) {
      if (!live.contains(number)) obsolete.add(directory.resolve(FileNames.table(number)));
    }
    return obsolete;
  }

  // A segment with no header may be followed only by segments holding nothing (LogDamage): it
  // goes before the new segment is created after it, which a crash could leave there. If it
  // cannot go, opening fails rather than leave that pair behind.
  private void deleteBeforeANewerSegment(Path headerless) throws IOException {
    vfs.delete(headerless);
    LOG.log(Level.INFO, "deleted " + headerless + ", a log segment whose header was never written");
  }
}
