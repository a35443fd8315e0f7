package dev.shale.storage;

import java.util.Locale;

/**
 * How a table's data blocks are compressed (docs/format.md, "Data blocks and compression"): each
 * block the engine writes is compressed with the store's codec when that saves at least an eighth
 * of it, and stored as it is otherwise. Changing the setting of a store is safe: every block says
 * its own codec, and the tables written before keep being read as they are.
 */
public enum Compression {
  /** Blocks stored as they are. */
  NONE,
  /** LZ4 (block format): fast to compress, very fast to decompress; RocksDB's usual choice. */
  LZ4,
  /** Zstandard at its default level: smaller than LZ4, slower to compress. */
  ZSTD;

  /** The name options and reports use: {@code none}, {@code lz4}, {@code zstd}. */
  public String optionName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
