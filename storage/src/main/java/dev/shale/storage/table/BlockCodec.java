package dev.shale.storage.table;

import dev.shale.storage.Compression;
import io.airlift.compress.v3.Compressor;
import io.airlift.compress.v3.Decompressor;
import io.airlift.compress.v3.lz4.Lz4Compressor;
import io.airlift.compress.v3.lz4.Lz4Decompressor;
import io.airlift.compress.v3.zstd.ZstdCompressor;
import io.airlift.compress.v3.zstd.ZstdDecompressor;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The data block codecs of docs/format.md ("Data blocks and compression"), through aircompressor:
 * its native LZ4 and Zstandard (the reference C libraries, called through the FFM API) where they
 * load, its pure-Java ports of the same formats otherwise. Either one reads what the other wrote.
 */
final class BlockCodec {
  /*
   * Thread safety. A compressor is used by one table writer at a time (TableWriter is single
   * threaded), so each writer has its own. Decompression runs on every reader thread at once;
   * aircompressor does not promise its decompressors are thread safe (the Java Zstandard one keeps
   * state between calls), so each thread keeps its own, created on its first compressed block.
   */
  private static final ThreadLocal<Decompressor> LZ4 = ThreadLocal.withInitial(Lz4Decompressor::create);
  private static final ThreadLocal<Decompressor> ZSTD = ThreadLocal.withInitial(ZstdDecompressor::create);

  private BlockCodec() {}

  /** The codec byte blocks compressed with {@code compression} carry. */
  static byte id(Compression compression) {
    return switch (compression) {
      case NONE -> TableFormat.CODEC_NONE;
      case LZ4 -> TableFormat.CODEC_LZ4;
      case ZSTD -> TableFormat.CODEC_ZSTD;
    };
  }

  /** A new compressor for {@code compression}, for one writer; null for {@link Compression#NONE}. */
  static @Nullable Compressor compressor(Compression compression) {
    return switch (compression) {
      case NONE -> null;
      case LZ4 -> Lz4Compressor.create();
      case ZSTD -> ZstdCompressor.create();
    };
  }

  /**
   * The contents compressed in {@code compressed} with {@code codec}, decompressed into memory of
   * {@code target} (asked for exactly {@code contentsLength} bytes, once the length is found
   * plausible); a CorruptionException naming the block if the codec is unknown, the bytes do not
   * decompress, or they do not make exactly {@code contentsLength} bytes.
   */
  static MemorySegment decompress(
      byte codec, MemorySegment compressed, long contentsLength, Path path, long fileOffset, LongFunction<MemorySegment> target) {
    Decompressor decompressor = switch (codec) {
      case TableFormat.CODEC_LZ4 -> LZ4.get();
      case TableFormat.CODEC_ZSTD -> ZSTD.get();
      default -> throw TableCorruption.at(path, fileOffset, "data block has unknown codec " + codec);
    };
    // A block's contents were at most 1 MiB when compressed (docs/format.md); more is garbage.
    if (contentsLength > TableFormat.MAX_COMPRESSED_CONTENTS_BYTES) {
      throw TableCorruption.at(path, fileOffset, "compressed block declares " + contentsLength + " bytes of contents");
    }
    MemorySegment contents = target.apply(contentsLength);
    int decompressed;
    try {
      decompressed = decompressor.decompress(compressed, contents);
    } catch (RuntimeException e) {
      // aircompressor's MalformedInputException, or a bounds check: the crc matched, so the
      // writer or the codec is at fault, not the disk, but the block is unreadable all the same.
      throw TableCorruption.at(path, fileOffset, "compressed block does not decompress (codec " + codec + "): " + e.getMessage());
    }
    if (decompressed != contentsLength) {
      throw TableCorruption.at(path, fileOffset,
          "compressed block decompresses to " + decompressed + " bytes, not its contents_length " + contentsLength);
    }
    return contents;
  }
}
