package dev.shale.app;

import dev.shale.storage.Entry;
import dev.shale.storage.inspect.DumpSink;
import dev.shale.storage.inspect.Finding;
import java.io.PrintWriter;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/** {@code shale tool dump} as text: a header per file, then one line per index entry, record or manifest table. */
final class DumpText implements DumpSink {
  private final PrintWriter out;
  private final int valueLimit;
  private boolean recordsBegun;

  DumpText(PrintWriter out, int valueLimit) {
    this.out = out;
    this.valueLimit = valueLimit;
  }

  @Override
  public void table(TableHeader t) {
    out.println("table " + t.file() + ": " + t.sizeBytes() + " bytes, format_version " + t.formatVersion()
        + (t.fileNumber() > 0 ? ", file_number " + t.fileNumber() : "") + ", " + t.entryCount() + " records, versions "
        + t.minVersion() + " to " + t.maxVersion());
    String filter = t.filterLength() == 0 ? "none" : "offset " + t.filterOffset() + ", " + t.filterLength() + " bytes"
        + (t.filterDamage() != null ? " (UNUSABLE: " + t.filterDamage() + ")" : "");
    out.println("  data blocks: " + t.dataBlocks() + " (offset 0 to " + t.filterOffset() + "); filter: " + filter
        + "; index: offset " + t.indexOffset() + ", " + t.indexLength() + " bytes; footer: offset " + t.footerOffset()
        + ", " + (t.sizeBytes() - t.footerOffset()) + " bytes");
    out.println("index");
  }

  @Override
  public void indexEntry(int block, long offset, long length, byte[] firstKey, byte[] lastKey) {
    String keys = firstKey.length > 0 // format_version 1 to 3 keep no first key
        ? "'" + PrintableBytes.text(firstKey, PrintableBytes.ALL) + "' to '" + PrintableBytes.text(lastKey, PrintableBytes.ALL) + "'"
        : "last key '" + PrintableBytes.text(lastKey, PrintableBytes.ALL) + "'";
    out.println("  block " + block + "  offset " + offset + "  " + length + " bytes  " + keys);
  }

  @Override
  public void segment(SegmentHeader s) {
    out.println("log segment " + s.file() + ": " + s.sizeBytes() + " bytes"
        + (s.headerMissing() ? ", no header (created, never written): no record" : ""));
  }

  @Override
  public void manifest(Path file, long sizeBytes) {
    out.println("manifest " + file + ": " + sizeBytes + " bytes");
  }

  @Override
  public void record(long offset, int block, Entry record) {
    if (!recordsBegun) {
      recordsBegun = true;
      out.println("records");
    }
    String where = block >= 0 ? "block " + block : "offset " + offset;
    byte[] bytes = record.value();
    String value = bytes == null ? "" : "  value '" + PrintableBytes.text(bytes, valueLimit) + "'";
    out.println("  " + where + "  '" + PrintableBytes.text(record.key(), PrintableBytes.ALL) + "'  "
        + RecordText.kind(record) + "  version " + RecordText.version(record.version()) + RecordText.expiry(record) + value);
  }

  @Override
  public void manifestRecord(long offset, @Nullable Snapshot snapshot, @Nullable String problem) {
    if (snapshot == null) {
      out.println("record at offset " + offset + ": DAMAGED: " + problem);
      return;
    }
    out.println("record at offset " + offset + ": next_file_number " + snapshot.nextFileNumber() + ", log_number "
        + snapshot.logNumber() + ", last_version " + snapshot.lastVersion() + ", segments " + snapshot.segments()
        + (snapshot.sealedSizes().isEmpty() ? "" : " (sealed sizes " + new java.util.TreeMap<>(snapshot.sealedSizes()) + ")")
        + ", " + snapshot.tables().size() + " tables");
    for (SnapshotTable t : snapshot.tables()) {
      out.println(String.format("  %06d.sst  level %d  %d bytes  %d records  versions %d to %d  keys '%s' to '%s'",
          t.fileNumber(), t.level(), t.fileSizeBytes(), t.entryCount(), t.minVersion(), t.maxVersion(),
          PrintableBytes.text(t.smallestKey(), PrintableBytes.ALL), PrintableBytes.text(t.largestKey(), PrintableBytes.ALL)));
    }
  }

  @Override
  public void finding(Finding finding) {
    out.println((finding.damage() ? "DAMAGE " : "note   ") + finding);
  }
}
