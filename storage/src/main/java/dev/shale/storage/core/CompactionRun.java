package dev.shale.storage.core;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Keys;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.merge.MergingIterator;
import dev.shale.storage.table.BlockCache;
import dev.shale.storage.table.ReadAhead;
import dev.shale.storage.table.TableMeta;
import dev.shale.storage.table.TableWriter;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Writes a compaction's output tables: merges the inputs (one record per key, the winner by
 * {@link Entry#newer}: overwritten versions are dropped here), drops the tombstones
 * {@link TombstonePurge} allows, and cuts the stream into tables of about
 * {@code tableTargetBytes}, closing a table only between two keys (every key is in exactly one
 * record of the stream, so any boundary is a key boundary). Each table is fsynced, then the
 * directory, before anything may name them.
 *
 * <p>On failure the outputs written so far are deleted: no manifest names them yet.
 */
final class CompactionRun {
  /** The outputs (each with one reference for the caller) and what it took to make them. */
  record Outputs(List<SharedTable> tables, long bytesWritten, long recordsWritten,
      long tombstonesDropped) {}

  private static final System.Logger LOG = System.getLogger(CompactionRun.class.getName());

  private final Path directory;
  private final EngineOptions options;
  private final FileNumbers fileNumbers;
  private final Hooks.CrashPoints crashPoints;

  private final BlockCache blockCache; // the engine's, which the tables written here read through

  CompactionRun(Path directory, EngineOptions options, FileNumbers fileNumbers,
      Hooks.CrashPoints crashPoints, BlockCache blockCache) {
    this.blockCache = blockCache;
    this.directory = directory;
    this.options = options;
    this.fileNumbers = fileNumbers;
    this.crashPoints = crashPoints;
  }

  /** Tells the test hooks that the compaction thread reached the step {@code name}. */
  void reached(String name) {
    crashPoints.reached(name);
  }

  /**
   * Writes the outputs of {@code compaction}. {@code cancelled} is polled per record: once true
   * (the engine is closing) the run stops with a CancellationException and deletes its outputs.
   */
  Outputs write(Compaction compaction, TombstonePurge purge, Predicate<byte[]> dropKeys, BooleanSupplier cancelled)
      throws IOException {
    List<EntryIterator> sources = sourcesOf(compaction.allInputs());
    Iterator<Entry> merged = MergingIterator.of(sources);
    List<SharedTable> outputs = new ArrayList<>();
    long bytes = 0;
    long records = 0;
    try {
      Survivors survivors = new Survivors(merged, purge, dropKeys, cancelled);
      while (survivors.hasNext()) {
        SharedTable output = writeOne(survivors, compaction.outputLevel());
        outputs.add(output);
        bytes += output.sizeBytes();
        records += output.meta().entryCount();
        crashPoints.reached("compaction.afterOutputWritten");
      }
      // The outputs' directory entries must be durable before a manifest record names them.
      options.vfs().syncDirectory(directory);
      crashPoints.reached("compaction.afterOutputsWritten");
      return new Outputs(outputs, bytes, records, purge.droppedCount());
    } catch (IOException | RuntimeException | Error e) {
      for (SharedTable t : outputs) {
        t.markObsolete();
        t.release();
      }
      throw e;
    } finally {
      Sources.closeAll(sources); // their read-ahead windows
    }
  }

  /**
   * The merge's sources: one per level-0 table (their ranges overlap), and one per level below
   * for its tables in key order, which the level's invariant keeps disjoint. Each source holds
   * one read-ahead window at a time, and the sources share a compaction's windows
   * ({@link ReadAhead#forCompaction}: 16 MiB in all), so a compaction's memory is bounded however
   * many tables it reads (a full compaction reads them all). Tables of one level that do overlap
   * (which no engine of this format writes) are read as sources of their own: the merge sorts
   * them, where one concatenation would not be in key order.
   */
  private static List<EntryIterator> sourcesOf(List<SharedTable> inputs) {
    Map<Integer, List<SharedTable>> byLevel = new TreeMap<>();
    for (SharedTable t : inputs) byLevel.computeIfAbsent(t.level(), l -> new ArrayList<>()).add(t);
    List<List<SharedTable>> groups = new ArrayList<>(); // each read as one source
    byLevel.forEach((level, tables) -> {
      List<SharedTable> byKey = new ArrayList<>(tables);
      byKey.sort((a, b) -> Keys.compare(a.meta().smallestKey(), b.meta().smallestKey()));
      if (level > 0 && disjointInOrder(byKey)) {
        groups.add(byKey);
      } else {
        for (SharedTable t : tables) groups.add(List.of(t));
      }
    });
    ReadAhead readAhead = ReadAhead.forCompaction(groups.size());
    List<EntryIterator> sources = new ArrayList<>();
    for (List<SharedTable> group : groups) {
      sources.add(group.size() == 1 ? group.getFirst().iterator(readAhead) : LevelIterator.forCompaction(group, readAhead));
    }
    return sources;
  }

  private static boolean disjointInOrder(List<SharedTable> byKey) {
    for (int i = 1; i < byKey.size(); i++) {
      if (Keys.compare(byKey.get(i - 1).meta().largestKey(), byKey.get(i).meta().smallestKey()) >= 0) return false;
    }
    return true;
  }

  private SharedTable writeOne(Survivors survivors, int level) throws IOException {
    long number = fileNumbers.allocate();
    Path file = directory.resolve(FileNames.table(number));
    TableMeta meta = TableWriter.write(options.vfs(), file, number,
        survivors.upTo(options.tableTargetBytes()),
        options.blockSizeBytes(), options.bloomBitsPerKey(), options.compression());
    try {
      return SharedTable.open(options.vfs(), file, meta.withLevel(level), blockCache);
    } catch (IOException | RuntimeException e) {
      deleteQuietly(file);
      throw e;
    }
  }

  // docs/format.md, "Table": an entry's 17-byte header, key and value, and its u32 offset. Block
  // trailers, index and filter come on top, so a table ends a few percent above its target.
  private static long entryBytes(Entry e) {
    byte[] value = e.value(); // null: a tombstone
    return 17L + 4 + e.key().length + (value == null ? 0 : value.length) + (e.expires() ? 8 : 0);
  }

  private void deleteQuietly(Path file) {
    try {
      options.vfs().delete(file);
    } catch (IOException e) {
      LOG.log(Level.WARNING, "deleting unfinished compaction output " + file + " failed: " + e);
    }
  }

  /**
   * The merged stream minus dropped tombstones, handed out in runs of about a table's size: each
   * {@link #upTo} is an iterator that ends once the records it returned reach the size, and the
   * next one resumes where it stopped.
   */
  private static final class Survivors {
    private final Iterator<Entry> merged;
    private final TombstonePurge purge;
    private final Predicate<byte[]> dropKeys;
    private final BooleanSupplier cancelled;
    private @Nullable Entry next; // the survivor hasNext() found and take() has not returned yet

    Survivors(Iterator<Entry> merged, TombstonePurge purge, Predicate<byte[]> dropKeys, BooleanSupplier cancelled) {
      this.merged = merged;
      this.purge = purge;
      this.dropKeys = dropKeys;
      this.cancelled = cancelled;
    }

    boolean hasNext() {
      return peek() != null;
    }

    Entry take() {
      Entry e = peek();
      if (e == null) throw new NoSuchElementException();
      next = null;
      return e;
    }

    // The next survivor, found if need be; null once the merge is exhausted.
    private @Nullable Entry peek() {
      while (next == null && merged.hasNext()) {
        if (cancelled.getAsBoolean()) throw new CancellationException("the engine is closing");
        Entry e = merged.next();
        // A dropped key's winner goes, and with it the key: the merge already left its older records out.
        if (!dropKeys.test(e.key()) && !purge.drop(e)) next = e;
      }
      return next;
    }

    Iterator<Entry> upTo(long targetBytes) {
      return new Iterator<>() {
        private long bytes;

        @Override
        public boolean hasNext() {
          return bytes < targetBytes && Survivors.this.hasNext();
        }

        @Override
        public Entry next() {
          if (!hasNext()) throw new NoSuchElementException();
          Entry e = take();
          bytes += entryBytes(e);
          return e;
        }
      };
    }
  }
}
