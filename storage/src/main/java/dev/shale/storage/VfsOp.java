package dev.shale.storage;

/** The kinds of {@link Vfs} call, as the test filesystems count them and pick them for faults. */
public enum VfsOp {
  CREATE, OPEN, READ, MAP, APPEND, SYNC, RENAME, DELETE, LIST, LOCK, SYNC_DIRECTORY, SIZE,
  CREATE_DIRECTORIES, TRUNCATE, USABLE_SPACE
}
