package dev.shale.storage.table;

import static dev.shale.storage.table.TableFormat.U32;

import dev.shale.storage.util.NativeMemory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongFunction;

/**
 * Turns a block as stored in a table file into its contents (docs/format.md, "Blocks", "Data
 * blocks and compression"): the crc is checked over the stored bytes first, so no byte of a
 * damaged block reaches a decompressor or a reader; then a compressed data block is decompressed
 * and its size checked against the contents_length it declares.
 */
final class StoredBlock {
  private StoredBlock() {}

  /**
   * The contents of {@code block}, a {@code block(E)} (an index block, or a data block of
   * format_version 1) wherever it lies, starting at {@code fileOffset} in the file: the bytes
   * before its crc, in place, once the crc matches.
   */
  static MemorySegment contents(MemorySegment block, long fileOffset, Path path) {
    long crcOffset = block.byteSize() - TableFormat.CRC_BYTES;
    if (crcOffset < 0) {
      throw TableCorruption.at(path, fileOffset, "block of " + block.byteSize() + " bytes is too short");
    }
    MemorySegment covered = block.asSlice(0, crcOffset);
    if (block.get(U32, crcOffset) != TableFormat.crc32c(covered)) {
      throw TableCorruption.at(path, fileOffset, "block of " + block.byteSize() + " bytes fails its crc");
    }
    return covered;
  }

  /**
   * The contents of data block {@code block} (its stored bytes, at {@code fileOffset} in the file)
   * of a table of {@code formatVersion}: in place when stored uncompressed, else decompressed into
   * memory {@code decompressInto} gives (exactly the contents' length is asked for).
   */
  static MemorySegment dataContents(
      MemorySegment block, long fileOffset, int formatVersion, Path path, LongFunction<MemorySegment> decompressInto) {
    // The crc covers the stored bytes and the codec byte: checked before either is believed.
    MemorySegment covered = contents(block, fileOffset, path);
    if (formatVersion == TableFormat.FORMAT_VERSION_1) return covered;
    long codecOffset = covered.byteSize() - TableFormat.CODEC_BYTES;
    if (codecOffset < 0) throw TableCorruption.at(path, fileOffset, "data block has no codec byte");
    byte codec = covered.get(ValueLayout.JAVA_BYTE, codecOffset);
    MemorySegment stored = covered.asSlice(0, codecOffset);
    if (codec == TableFormat.CODEC_NONE) return stored;
    if (stored.byteSize() < TableFormat.CONTENTS_LENGTH_BYTES) {
      throw TableCorruption.at(path, fileOffset, "compressed block of " + stored.byteSize() + " bytes is too short");
    }
    long contentsLength = Integer.toUnsignedLong(stored.get(U32, 0));
    MemorySegment compressed = stored.asSlice(TableFormat.CONTENTS_LENGTH_BYTES);
    return BlockCodec.decompress(codec, compressed, contentsLength, path, fileOffset, decompressInto);
  }

  /**
   * Data block {@code block}, whose stored bytes {@code stored} (native memory of
   * {@link NativeMemory#allocate}, which this call takes over and frees or keeps) were read from
   * {@code fileOffset}: checked, decompressed into memory of its own if it was compressed, and
   * counted in {@code heldBytes} while it lives.
   */
  static LoadedBlock load(MemorySegment stored, long fileOffset, int formatVersion, Path path, LongAdder heldBytes) {
    MemorySegment[] decompressed = new MemorySegment[1];
    try {
      MemorySegment contents = dataContents(stored, fileOffset, formatVersion, path,
          length -> decompressed[0] = NativeMemory.allocate(length));
      MemorySegment own = decompressed[0];
      if (own == null) return new LoadedBlock(stored, contents, heldBytes);
      NativeMemory.free(stored);
      return new LoadedBlock(own, contents, heldBytes);
    } catch (RuntimeException | Error e) {
      MemorySegment own = decompressed[0];
      if (own != null) NativeMemory.free(own);
      NativeMemory.free(stored);
      throw e;
    }
  }
}
