package dev.shale.bench;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Values cut at random offsets from a pool of seeded bytes, as db_bench does: random,
 * incompressible bytes, or JSON-like text ({@link ValueKind}). Each value is a new array,
 * because Shale's engine takes ownership of the arrays it is given. Thread safe: the pool is
 * read only; each thread passes its own random.
 */
final class ValueSource {
  private static final int MIN_POOL_BYTES = 1 << 20;

  private final byte[] pool;
  private final int valueSizeBytes;

  private static final String[] FIRST_NAMES = {"ana", "bruno", "chen", "dmitri", "elena", "farah", "goran",
      "hana", "ivan", "julia", "kofi", "lena", "marco", "nadia", "oscar", "priya"};
  private static final String[] CITIES = {"Lisbon", "Berlin", "Osaka", "Lagos", "Lima", "Oslo", "Pune",
      "Quebec", "Riga", "Seoul", "Tunis", "Utrecht"};
  private static final String[] TAGS = {"new", "vip", "trial", "churned", "beta", "mobile", "web", "eu", "us"};
  private static final String[] PLANS = {"free", "basic", "pro", "enterprise"};

  ValueSource(int valueSizeBytes, long seed) {
    this(valueSizeBytes, seed, ValueKind.RANDOM);
  }

  ValueSource(int valueSizeBytes, long seed, ValueKind kind) {
    this.valueSizeBytes = valueSizeBytes;
    // Twice the value at least, so values start at many different offsets.
    int poolBytes = Math.max(MIN_POOL_BYTES, 2 * valueSizeBytes);
    SplittableRandom random = new SplittableRandom(seed);
    this.pool = switch (kind) {
      case RANDOM -> {
        byte[] bytes = new byte[poolBytes];
        random.nextBytes(bytes);
        yield bytes;
      }
      case TEXT -> textPool(poolBytes, random);
    };
  }

  /** Records like a user document store's, one after another, as many as fill {@code bytes}. */
  private static byte[] textPool(int bytes, SplittableRandom random) {
    StringBuilder text = new StringBuilder(bytes + 256);
    while (text.length() < bytes) {
      String name = FIRST_NAMES[random.nextInt(FIRST_NAMES.length)];
      int id = random.nextInt(10_000_000);
      text.append("{\"id\":").append(id)
          .append(",\"name\":\"").append(name).append('-').append(random.nextInt(1000))
          .append("\",\"email\":\"").append(name).append(id).append("@example.com")
          .append("\",\"city\":\"").append(CITIES[random.nextInt(CITIES.length)])
          .append("\",\"plan\":\"").append(PLANS[random.nextInt(PLANS.length)])
          .append("\",\"active\":").append(random.nextBoolean())
          .append(",\"score\":").append(random.nextInt(100_000))
          .append(",\"tags\":[\"").append(TAGS[random.nextInt(TAGS.length)])
          .append("\",\"").append(TAGS[random.nextInt(TAGS.length)]).append("\"]}\n");
    }
    return Arrays.copyOf(text.toString().getBytes(StandardCharsets.US_ASCII), bytes);
  }

  byte[] next(SplittableRandom random) {
    byte[] value = new byte[valueSizeBytes];
    int offset = random.nextInt(pool.length - valueSizeBytes + 1);
    System.arraycopy(pool, offset, value, 0, valueSizeBytes);
    return value;
  }

  int valueSizeBytes() {
    return valueSizeBytes;
  }
}
