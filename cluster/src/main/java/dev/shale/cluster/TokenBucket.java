package dev.shale.cluster;

/**
 * A token bucket: {@code perSecond} tokens a second, up to a burst of a tenth of a second's worth
 * (at least one). A take may cost more tokens than the bucket holds; the bucket then runs into
 * debt, which later takes wait out, so over any interval of {@code t} seconds the tokens taken
 * stay below {@code burst + perSecond * t + the last take's cost}.
 *
 * <p>Not thread safe: one thread (the delivery thread, a repair's thread) uses it. Time is passed in, in nanoseconds
 * of {@link System#nanoTime}.
 */
public final class TokenBucket {
  private final double tokensPerNano;
  private final double burst;
  private double tokens;
  private long lastNanos;

  public TokenBucket(int perSecond, long nowNanos) {
    if (perSecond < 1) throw new IllegalArgumentException("perSecond must be >= 1: " + perSecond);
    this.tokensPerNano = perSecond / 1e9;
    this.burst = Math.max(1.0, perSecond / 10.0);
    this.tokens = burst;
    this.lastNanos = nowNanos;
  }

  /** How long until a take may go: 0 once the bucket holds a whole token. */
  public long nanosUntilAvailable(long nowNanos) {
    refill(nowNanos);
    return tokens >= 1.0 ? 0 : (long) Math.ceil((1.0 - tokens) / tokensPerNano);
  }

  /** Takes {@code cost} tokens; call only when {@link #nanosUntilAvailable} said 0. */
  public void take(int cost, long nowNanos) {
    refill(nowNanos);
    tokens -= cost;
  }

  private void refill(long nowNanos) {
    long elapsed = nowNanos - lastNanos;
    if (elapsed <= 0) return;
    tokens = Math.min(burst, tokens + elapsed * tokensPerNano);
    lastNanos = nowNanos;
  }
}
