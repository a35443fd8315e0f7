package dev.shale.server.http;

import org.jspecify.annotations.Nullable;

/**
 * The {@code ttl} parameter of a PUT: how many seconds the value lives (README, "TTL"). The
 * coordinator turns it into an absolute expiry once, from its clock, so every replica stores the
 * same record.
 */
final class TimeToLive {
  /** The longest ttl, in seconds: 10 years of 365 days. Longer is refused rather than trusted. */
  static final long MAX_SECONDS = 10L * 365 * 24 * 3600;
  /** {@link #millis} of a request without {@code ttl}: the value does not expire. */
  static final long NONE = 0;

  private TimeToLive() {}

  /**
   * The ttl in milliseconds, {@link #NONE} for {@code raw} null (no parameter).
   *
   * @throws InvalidRequestException unless {@code raw} is a positive decimal integer of seconds,
   *     at most {@link #MAX_SECONDS}, digits only (no sign, no spaces)
   */
  static long millis(@Nullable String raw) throws InvalidRequestException {
    if (raw == null) return NONE;
    if (raw.isEmpty() || !raw.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new InvalidRequestException("ttl must be a positive whole number of seconds, not '" + shown(raw) + "'");
    }
    // More than 18 digits would overflow the long, and is over the limit anyway.
    long seconds = raw.length() > 18 ? Long.MAX_VALUE : Long.parseLong(raw);
    if (seconds == 0) throw new InvalidRequestException("ttl must be a positive whole number of seconds, not 0");
    if (seconds > MAX_SECONDS) {
      throw new InvalidRequestException("ttl must be at most " + MAX_SECONDS + " seconds (10 years), not " + shown(raw));
    }
    return seconds * 1000;
  }

  // The parameter as the reason shows it: bounded, so a long one does not make a long line.
  private static String shown(String raw) {
    return raw.length() <= 40 ? raw : raw.substring(0, 40) + "...";
  }
}
