package dev.shale.storage.io;

import java.lang.foreign.MemorySegment;

/**
 * What a record's payload must look like, besides passing its crc, in one kind of file
 * (docs/format.md: a log record's lengths add up; a manifest record has room for its tables).
 * Reading a few bytes, it lets resynchronising skip the offsets where no record the writer can
 * produce starts, and lets the reader tell a record cut short by the end of the file (what a crash
 * during an append leaves) from other bytes.
 */
@FunctionalInterface
public interface RecordShape {
  /**
   * True if the writer can produce a record whose payload of {@code lengthBytes} starts at
   * {@code payloadOffset} in {@code file}, judged by what of the payload lies in the file: a
   * payload the end of the file cuts short is judged by its length and the bytes there are.
   */
  boolean plausible(MemorySegment file, long payloadOffset, long lengthBytes);
}
