package dev.shale.testkit.netns;

import java.time.Duration;

/**
 * The links of one node, routed through delaying proxies by {@link NamespaceNetwork#delayLinksOf}:
 * in both directions, to and from every peer. Thread safe.
 */
public final class DelayedLinks {
  private static final Duration HOLD_TIMEOUT = Duration.ofSeconds(10);

  private final LinkDelay delay;

  DelayedLinks(LinkDelay delay) {
    this.delay = delay;
  }

  /** Delays every byte read from now on by {@code delay} (zero: none). */
  public void delay(Duration delay) {
    this.delay.set(delay);
  }

  /**
   * Holds every byte until {@link #release}: returns once no proxied write is under way, so that
   * {@link #deliveredBytes} cannot change until then.
   */
  public void hold() {
    try {
      delay.hold(HOLD_TIMEOUT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while holding the links", e);
    }
  }

  /** Lets the held bytes go, each once its delay passed. */
  public void release() {
    delay.release();
  }

  /** The bytes the proxies wrote out so far, both directions together. */
  public long deliveredBytes() {
    return delay.deliveredBytes();
  }
}
