package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table against the manifest's record of it (docs/format.md, "Recovery at open", step 1), for
 * tables of every format version spelled from the spec: each way the file differs from the
 * record is named, with the file and its footer's offset.
 */
class TableIdentityTest {
  private static final int[] VERSIONS = {
    TableFormat.FORMAT_VERSION_1, TableFormat.FORMAT_VERSION_2, TableFormat.FORMAT_VERSION_3, TableFormat.FORMAT_VERSION_4
  };

  @TempDir Path dir;

  @Test
  void aTableOfEveryFormatVersionMatchesItsOwnRecord() throws IOException {
    for (int version : VERSIONS) {
      Path file = specTable(version);
      try (Table table = Table.open(Vfs.real(), file, TableFormatTest.SPEC_FILE_NUMBER)) {
        assertThatCode(() -> TableIdentity.check(table, record(file))).as("format %d", version).doesNotThrowAnyException();
      }
    }
  }

  @Test
  void eachDifferenceFromTheRecordIsNamed() throws IOException {
    for (int version : VERSIONS) {
      Path file = specTable(version);
      TableMeta r = record(file);
      assertDiffers(file, new TableMeta(r.fileNumber(), 0, r.fileSizeBytes() + 1, r.entryCount(), r.minVersion(),
          r.maxVersion(), r.smallestKey(), r.largestKey()), "its size in bytes is " + r.fileSizeBytes());
      assertDiffers(file, new TableMeta(r.fileNumber(), 0, r.fileSizeBytes(), 3, r.minVersion(),
          r.maxVersion(), r.smallestKey(), r.largestKey()), "its record count is 2, the manifest records 3");
      assertDiffers(file, new TableMeta(r.fileNumber(), 0, r.fileSizeBytes(), r.entryCount(), 6,
          r.maxVersion(), r.smallestKey(), r.largestKey()), "its min_version is 7, the manifest records 6");
      assertDiffers(file, new TableMeta(r.fileNumber(), 0, r.fileSizeBytes(), r.entryCount(), r.minVersion(),
          r.maxVersion() + 1, r.smallestKey(), r.largestKey()), "its max_version is " + r.maxVersion());
      assertDiffers(file, with(r, "k1", "k3"), "its last key is 'k2', the manifest records 'k3'");
      // Formats 1 to 3 hold their first key in the first data block only: a smallest key above
      // that block's last key is caught, one below it is not (the other fields are).
      assertDiffers(file, with(r, "k3", "k2"), version >= TableFormat.FORMAT_VERSION_4
          ? "its first key is 'k1', the manifest records 'k3'" : "its first block ends at 'k2', below the first key");
    }
  }

  @Test
  void aFormat4TableUnderAnotherNumberIsRefusedWhateverTheRecordSays() throws IOException {
    Path file = specTable(TableFormat.FORMAT_VERSION_4);
    TableMeta r = record(file);
    TableMeta asTable41 = new TableMeta(41, 0, r.fileSizeBytes(), r.entryCount(), r.minVersion(), r.maxVersion(),
        r.smallestKey(), r.largestKey());
    assertDiffers(file, asTable41, "its footer says it is table 000009.sst, not 000041.sst");
  }

  @Test
  void aFormat4TableWhoseFirstKeyAloneDiffersIsCaught() throws IOException {
    Path file = specTable(TableFormat.FORMAT_VERSION_4);
    assertDiffers(file, with(record(file), "k0", "k2"), "its first key is 'k1', the manifest records 'k0'");
  }

  private void assertDiffers(Path file, TableMeta described, String difference) throws IOException {
    try (Table table = Table.open(Vfs.real(), file, described.fileNumber())) {
      long footerOffset = Files.size(file) - Footer.bytes(table.formatVersion());
      assertThatThrownBy(() -> TableIdentity.check(table, described))
          .as("format %d against %s", table.formatVersion(), described)
          .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(file))
          .hasMessageContaining("offset " + footerOffset)
          .hasMessageContaining("not the table the manifest describes")
          .hasMessageContaining(difference);
    }
  }

  // TableFormatTest's spelled table: records k1 (version V1) and k2 (a tombstone at version 7).
  private Path specTable(int version) throws IOException {
    return Files.write(dir.resolve("v" + version + ".sst"), TableFormatTest.specTable(version, TableFormat.CODEC_NONE));
  }

  private static TableMeta record(Path file) throws IOException {
    long maxVersion = TableFormatTest.RECORDS.getFirst().version();
    return new TableMeta(TableFormatTest.SPEC_FILE_NUMBER, 0, Files.size(file), 2, 7, maxVersion, bytes("k1"), bytes("k2"));
  }

  private static TableMeta with(TableMeta r, String smallest, String largest) {
    return new TableMeta(r.fileNumber(), 0, r.fileSizeBytes(), r.entryCount(), r.minVersion(), r.maxVersion(),
        bytes(smallest), bytes(largest));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
