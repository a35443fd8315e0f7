package dev.shale.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link CrashVfs}'s own model, where the engine's tests lean on it beyond plain files. */
class CrashVfsTest {
  @TempDir Path dir;

  // Engine.checkpoint builds its directory under a temporary name and renames it into place;
  // CrashVfs renamed files only, and failed the rename with NoSuchFileException.
  @Test
  void aDirectoryRenamedMovesItsSyncedFilesWithIt() throws IOException {
    Path root = dir.resolve("root");
    CrashVfs vfs = new CrashVfs(root, dir.resolve("survivors"));
    Path partial = root.resolve(".checkpoint.partial");
    vfs.createDirectories(partial);
    try (Vfs.WritableFile file = vfs.create(partial.resolve("MANIFEST-000001"))) {
      file.append(ByteBuffer.wrap("synced".getBytes(StandardCharsets.US_ASCII)));
      file.sync(true);
      file.append(ByteBuffer.wrap(" and not".getBytes(StandardCharsets.US_ASCII)));
    }
    vfs.syncDirectory(partial);

    vfs.rename(partial, root.resolve("checkpoint"));
    vfs.syncDirectory(root);
    Path survivors = vfs.powerLoss();

    assertThat(survivors.resolve(".checkpoint.partial")).doesNotExist();
    assertThat(Files.readString(survivors.resolve("checkpoint/MANIFEST-000001"))).isEqualTo("synced");
  }
}
