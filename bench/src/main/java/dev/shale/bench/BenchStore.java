package dev.shale.bench;

import java.util.List;

/**
 * One engine as the benchmark drives it: the same few calls for Shale and for RocksDB, so that
 * both run the very same workload code. Thread safe like the engines behind it.
 */
interface BenchStore extends AutoCloseable {
  /** The engine's settings, one "name: value" line each, for the report. */
  List<String> settings();

  void put(byte[] key, byte[] value);

  /** Whether {@code key} holds a value (a tombstone or nothing: false). */
  boolean get(byte[] key);

  void delete(byte[] key);

  /** A cursor over the live records from {@code startInclusive} to the end of the store. */
  Cursor scan(byte[] startInclusive);

  /** Compacts the whole store, blocking until done. */
  void compact();

  /** A short description of the store's file set (files per level), for the report's notes. */
  String shape();

  @Override
  void close();

  /** Records in key order; one thread at a time. */
  interface Cursor extends AutoCloseable {
    /** Reads the next record (key and value into the heap); false at the end. */
    boolean next();

    @Override
    void close();
  }
}
