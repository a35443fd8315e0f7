package dev.shale.app;

import dev.shale.server.StatusBody;
import dev.shale.storage.Entry;
import dev.shale.storage.inspect.DumpSink;
import dev.shale.storage.inspect.Finding;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * {@code shale tool dump --json}: one JSON object per line, each with a {@code "type"} ({@code
 * table}, {@code block}, {@code segment}, {@code manifest}, {@code record}, {@code snapshot},
 * {@code damage}, {@code note}), so a dump of any size streams and a script reads it line by line.
 * Keys and values as {@link PrintableBytes#json} writes them.
 */
final class DumpJson implements DumpSink {
  private final PrintWriter out;
  private final int valueLimit;

  DumpJson(PrintWriter out, int valueLimit) {
    this.out = out;
    this.valueLimit = valueLimit;
  }

  @Override
  public void table(TableHeader t) {
    out.println("{\"type\": \"table\", \"file\": " + quote(t.file()) + ", \"sizeBytes\": " + t.sizeBytes()
        + ", \"formatVersion\": " + t.formatVersion() + ", \"fileNumber\": " + t.fileNumber() + ", \"entryCount\": "
        + t.entryCount() + ", \"minVersion\": " + t.minVersion() + ", \"maxVersion\": " + t.maxVersion()
        + ", \"dataBlocks\": " + t.dataBlocks() + ", \"indexOffset\": " + t.indexOffset() + ", \"indexLength\": "
        + t.indexLength() + ", \"filterOffset\": " + t.filterOffset() + ", \"filterLength\": " + t.filterLength()
        + ", \"filterDamage\": " + quoteOrNull(t.filterDamage())
        + ", \"footerOffset\": " + t.footerOffset() + "}");
  }

  @Override
  public void indexEntry(int block, long offset, long length, byte[] firstKey, byte[] lastKey) {
    out.println("{\"type\": \"block\", \"block\": " + block + ", \"offset\": " + offset + ", \"length\": " + length
        + (firstKey.length > 0 ? ", " + PrintableBytes.json("firstKey", firstKey, PrintableBytes.ALL) : "") + ", "
        + PrintableBytes.json("lastKey", lastKey, PrintableBytes.ALL) + "}");
  }

  @Override
  public void segment(SegmentHeader s) {
    out.println("{\"type\": \"segment\", \"file\": " + quote(s.file()) + ", \"sizeBytes\": " + s.sizeBytes()
        + ", \"headerMissing\": " + s.headerMissing() + "}");
  }

  @Override
  public void manifest(Path file, long sizeBytes) {
    out.println("{\"type\": \"manifest\", \"file\": " + quote(file) + ", \"sizeBytes\": " + sizeBytes + "}");
  }

  @Override
  public void record(long offset, int block, Entry record) {
    StringBuilder line = new StringBuilder("{\"type\": \"record\", \"offset\": ").append(offset);
    if (block >= 0) line.append(", \"block\": ").append(block);
    line.append(", ").append(PrintableBytes.json("key", record.key(), PrintableBytes.ALL))
        .append(", \"version\": ").append(record.version())
        .append(", \"kind\": ").append(StatusBody.quote(RecordText.kind(record)));
    if (record.expires()) line.append(", \"expiresAt\": ").append(record.expiresAtMillis());
    byte[] value = record.value();
    if (value != null) line.append(", ").append(PrintableBytes.json("value", value, valueLimit));
    out.println(line.append('}'));
  }

  @Override
  public void manifestRecord(long offset, @Nullable Snapshot snapshot, @Nullable String problem) {
    if (snapshot == null) {
      out.println("{\"type\": \"snapshot\", \"offset\": " + offset + ", \"problem\": "
          + StatusBody.quote(String.valueOf(problem)) + "}");
      return;
    }
    StringJoiner tables = new StringJoiner(", ", "[", "]");
    for (SnapshotTable t : snapshot.tables()) {
      tables.add("{\"fileNumber\": " + t.fileNumber() + ", \"level\": " + t.level() + ", \"fileSize\": "
          + t.fileSizeBytes() + ", \"entryCount\": " + t.entryCount() + ", \"minVersion\": " + t.minVersion()
          + ", \"maxVersion\": " + t.maxVersion() + ", " + PrintableBytes.json("smallestKey", t.smallestKey(), PrintableBytes.ALL)
          + ", " + PrintableBytes.json("largestKey", t.largestKey(), PrintableBytes.ALL) + "}");
    }
    out.println("{\"type\": \"snapshot\", \"offset\": " + offset + ", \"nextFileNumber\": " + snapshot.nextFileNumber()
        + ", \"logNumber\": " + snapshot.logNumber() + ", \"lastVersion\": " + snapshot.lastVersion()
        + ", \"segments\": " + snapshot.segments() + ", \"sealedSizes\": " + sealedSizes(snapshot) + ", \"tables\": " + tables + "}");
  }

  // A JSON object of segment number to sealed size, in segment order.
  private static String sealedSizes(DumpSink.Snapshot snapshot) {
    StringBuilder object = new StringBuilder("{");
    for (var sealed : new java.util.TreeMap<>(snapshot.sealedSizes()).entrySet()) {
      if (object.length() > 1) object.append(", ");
      object.append('"').append(sealed.getKey()).append("\": ").append(sealed.getValue());
    }
    return object.append('}').toString();
  }

  @Override
  public void finding(Finding f) {
    out.println("{\"type\": " + StatusBody.quote(f.damage() ? "damage" : "note") + ", \"file\": " + quote(f.file())
        + ", \"offset\": " + f.offset() + ", \"problem\": " + StatusBody.quote(f.problem()) + "}");
  }

  private static String quoteOrNull(@Nullable String text) {
    return text == null ? "null" : StatusBody.quote(text);
  }

  private static String quote(Path file) {
    return StatusBody.quote(file.toString());
  }
}
