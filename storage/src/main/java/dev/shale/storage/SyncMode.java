package dev.shale.storage;

/** When a write's log record is forced to disk, relative to acknowledging the write. */
public enum SyncMode {
  /**
   * The default. A write is acknowledged once its record was handed to the OS with write(): it
   * survives the process dying (kill -9) but not the machine losing power. A background thread
   * fsyncs the log every {@link EngineOptions#syncIntervalMillis()}, which bounds what a power
   * loss can take.
   */
  INTERVAL,
  /**
   * A write is acknowledged only after an fsync covering its record. Concurrent writers share
   * one fsync (group commit), so the cost per write falls as concurrency rises.
   */
  ALWAYS
}
