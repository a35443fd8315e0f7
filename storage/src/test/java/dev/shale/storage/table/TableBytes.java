package dev.shale.storage.table;

import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/** A table file's bytes, to damage in tests: flip bytes, then optionally re-seal a crc. */
final class TableBytes {
  final byte[] bytes;
  final Footer footer;
  final List<BlockHandle> dataBlocks;

  private TableBytes(byte[] bytes, Footer footer, List<BlockHandle> dataBlocks) {
    this.bytes = bytes;
    this.footer = footer;
    this.dataBlocks = dataBlocks;
  }

  static TableBytes read(Path file) throws IOException {
    List<BlockHandle> dataBlocks = new ArrayList<>();
    try (Table table = Table.open(Vfs.real(), file, 0)) {
      for (int i = 0; i < table.blockCount(); i++) dataBlocks.add(table.blockHandle(i));
    }
    byte[] bytes = Files.readAllBytes(file);
    try (Vfs.ReadableFile opened = Vfs.real().open(file)) {
      return new TableBytes(bytes, Footer.read(opened, bytes.length, file), dataBlocks);
    }
  }

  /** The keys of each data block, in order, read from the intact table. */
  static List<List<byte[]>> keysByBlock(Path file) throws IOException {
    List<List<byte[]>> keys = new ArrayList<>();
    try (Table table = Table.open(Vfs.real(), file, 0)) {
      try (SequentialBlocks blocks = new SequentialBlocks(table, ReadAhead.SCAN)) {
        for (int b = 0; b < table.blockCount(); b++) {
          List<byte[]> blockKeys = new ArrayList<>();
          for (DataBlock.Cursor c = blocks.block(b).seek(null); c.valid(); c.next()) {
            blockKeys.add(c.entry().key());
          }
          keys.add(blockKeys);
        }
      }
    }
    return keys;
  }

  TableBytes copy() {
    return new TableBytes(bytes.clone(), footer, dataBlocks);
  }

  /** The whole footer: 72 bytes from format_version 4 (file_number first), 64 before. */
  BlockHandle footerHandle() {
    int length = Footer.bytes(footer.formatVersion());
    return new BlockHandle(bytes.length - length, length);
  }

  /** Where footer_fields start (index_offset first): the last 64 bytes, in every format version. */
  long footerFieldsOffset() {
    return bytes.length - TableFormat.FOOTER_BYTES;
  }

  TableBytes flip(long position) {
    bytes[Math.toIntExact(position)] ^= (byte) 0x5A;
    return this;
  }

  TableBytes putU8(long position, int value) {
    bytes[Math.toIntExact(position)] = (byte) value;
    return this;
  }

  int u32(long position) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(Math.toIntExact(position));
  }

  TableBytes putU32(long position, int value) {
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(Math.toIntExact(position), value);
    return this;
  }

  /** Recomputes the crc closing a block or filter block, so damage inside it passes the crc. */
  TableBytes resealBlock(BlockHandle block) {
    int crcAt = Math.toIntExact(block.end() - 4);
    return putU32(crcAt, crc(Math.toIntExact(block.offset()), crcAt));
  }

  /** Recomputes the footer's crc over the bytes before it (60 from format_version 4, 52 before). */
  TableBytes resealFooter() {
    int start = Math.toIntExact(footerHandle().offset());
    int crcAt = bytes.length - TableFormat.FOOTER_BYTES + TableFormat.FOOTER_CRC_COVERED_BYTES;
    return putU32(crcAt, crc(start, crcAt));
  }

  Path writeTo(Path file) throws IOException {
    Files.write(file, bytes);
    return file;
  }

  private int crc(int from, int to) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, from, to - from);
    return (int) crc.getValue();
  }

  static Entry entry(int i, int valueBytes) {
    return new Entry(String.format("key-%06d", i).getBytes(StandardCharsets.UTF_8), i + 1, new byte[valueBytes]);
  }
}
