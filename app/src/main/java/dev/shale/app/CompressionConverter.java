package dev.shale.app;

import dev.shale.storage.Compression;

/** {@code --compression none|lz4|zstd}, in any case. */
final class CompressionConverter extends LowerCaseEnumConverter<Compression> {
  CompressionConverter() {
    super(Compression.class, "--compression");
  }
}
