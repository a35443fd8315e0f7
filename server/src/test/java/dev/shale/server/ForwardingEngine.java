package dev.shale.server;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineHealth;
import dev.shale.storage.EngineStats;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.HybridClock;
import java.util.List;
import java.util.function.Predicate;

/**
 * An engine that passes every call on; tests override a method to block or fail it. Except
 * {@link Engine#read}, which keeps the interface's default (a copy through {@link #get}): a test
 * that blocks or fails {@code get} blocks or fails the server's GETs too, and this engine lends
 * nothing. And {@link Engine#readFromMemory}, which keeps its default too (nothing is answered
 * from memory), so that every GET reaches {@code get} on a storage worker.
 */
class ForwardingEngine implements Engine {
  private final Engine delegate;

  ForwardingEngine(Engine delegate) {
    this.delegate = delegate;
  }

  @Override
  public Entry get(byte[] key) {
    return delegate.get(key);
  }

  @Override
  public long put(byte[] key, byte[] value) {
    return delegate.put(key, value);
  }

  @Override
  public long put(byte[] key, byte[] value, long expiresAtMillis) {
    return delegate.put(key, value, expiresAtMillis);
  }

  @Override
  public long delete(byte[] key) {
    return delegate.delete(key);
  }

  @Override
  public void write(byte[] key, byte[] value, long version) {
    delegate.write(key, value, version);
  }

  @Override
  public void write(byte[] key, byte[] value, long version, long expiresAtMillis) {
    delegate.write(key, value, version, expiresAtMillis);
  }

  @Override
  public boolean tryWrite(byte[] key, byte[] value, long version) {
    return delegate.tryWrite(key, value, version);
  }

  @Override
  public boolean tryWrite(byte[] key, byte[] value, long version, long expiresAtMillis) {
    return delegate.tryWrite(key, value, version, expiresAtMillis);
  }

  @Override
  public boolean tryWriteAll(List<Entry> records) {
    return delegate.tryWriteAll(records);
  }

  @Override
  public EntryIterator scan(byte[] startInclusive, byte[] endExclusive, boolean includeTombstones) {
    return delegate.scan(startInclusive, endExclusive, includeTombstones);
  }

  @Override
  public void compact() {
    delegate.compact();
  }

  @Override
  public void dropKeys(Predicate<byte[]> keys) {
    delegate.dropKeys(keys);
  }

  @Override
  public HybridClock clock() {
    return delegate.clock();
  }

  @Override
  public EngineStats stats() {
    return delegate.stats();
  }

  @Override
  public EngineHealth health() {
    return delegate.health();
  }

  @Override
  public void close() {
    // The test's TestServer closes the real engine.
  }
}
