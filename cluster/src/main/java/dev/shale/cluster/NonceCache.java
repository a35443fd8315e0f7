package dev.shale.cluster;

import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The nonces of the admin requests a node accepted, each until its window ends, at most {@code
 * capacity} at once: a recorded request whose time is still accepted is refused as a replay
 * (docs/format.md, "Admin request signatures").
 *
 * <p>Thread safe: the event loops share one per node; admin calls are rare, so a lock is cheap.
 */
final class NonceCache {
  enum Outcome { ACCEPTED, REPLAYED, FULL }

  private record Expiry(long atMillis, String nonce) {}

  private final int capacity;
  // Invariant: the same nonces, each with the same expiry, in both.
  private final Map<String, Long> expiries = new HashMap<>();
  private final PriorityQueue<Expiry> byExpiry = new PriorityQueue<>((a, b) -> Long.compare(a.atMillis(), b.atMillis()));

  NonceCache(int capacity) {
    if (capacity < 1) throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
    this.capacity = capacity;
  }

  /**
   * Remembers {@code nonce} until {@code expiresAtMillis}, unless it is already remembered (a
   * replay) or {@code capacity} nonces are still unexpired at {@code nowMillis} (full).
   */
  synchronized Outcome add(String nonce, long expiresAtMillis, long nowMillis) {
    dropExpired(nowMillis);
    if (expiries.containsKey(nonce)) return Outcome.REPLAYED;
    if (expiries.size() >= capacity) return Outcome.FULL;
    expiries.put(nonce, expiresAtMillis);
    byExpiry.add(new Expiry(expiresAtMillis, nonce));
    return Outcome.ACCEPTED;
  }

  synchronized int size() {
    return expiries.size();
  }

  private void dropExpired(long nowMillis) {
    while (!byExpiry.isEmpty() && byExpiry.peek().atMillis() < nowMillis) {
      expiries.remove(byExpiry.poll().nonce());
    }
  }
}
