package dev.shale.storage.table;

/** Where a block sits in its table file: its offset and its length including its trailer. */
record BlockHandle(long offset, long length) {
  long end() {
    return offset + length;
  }
}
