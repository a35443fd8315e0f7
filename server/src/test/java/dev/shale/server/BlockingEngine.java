package dev.shale.server;

import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An engine whose {@code get} of one key blocks until the test releases it: a deterministic
 * "slow storage call".
 */
final class BlockingEngine extends ForwardingEngine {
  private final byte[] blockedKey;
  private final Duration maxBlock; // a test that never releases fails past it, rather than hang
  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final java.util.concurrent.atomic.AtomicInteger completedGets = new java.util.concurrent.atomic.AtomicInteger();

  BlockingEngine(Engine delegate, String blockedKey) {
    this(delegate, blockedKey, TestServer.TIMEOUT);
  }

  /** {@code maxBlock}: how long a blocked call waits for the release at most; past it, it fails. */
  BlockingEngine(Engine delegate, String blockedKey, Duration maxBlock) {
    super(delegate);
    this.blockedKey = blockedKey.getBytes(StandardCharsets.UTF_8);
    this.maxBlock = maxBlock;
  }

  @Override
  public Entry get(byte[] key) {
    if (java.util.Arrays.equals(key, blockedKey)) {
      entered.countDown();
      try {
        if (!release.await(maxBlock.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException("test never released the blocked get");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    Entry entry = super.get(key);
    completedGets.incrementAndGet();
    return entry;
  }

  /** Calls of {@code get} that have returned. */
  int completedGets() {
    return completedGets.get();
  }

  /** Waits until a call is blocked in {@code get}. */
  void awaitBlocked() throws InterruptedException {
    if (!entered.await(TestServer.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("no call reached the blocked get");
    }
  }

  void release() {
    release.countDown();
  }
}
