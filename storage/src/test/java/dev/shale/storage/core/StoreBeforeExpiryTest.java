package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store written by the code before expiring values existed (commit 83ac3e2) opens and reads as
 * it did, and takes expiring values from then on. The fixture in
 * {@code src/test/resources/stores/before-expiry} (its README says how it was made) holds a table
 * and a log segment.
 *
 * <p>The engine runs on a wall clock pinned to a few minutes after the fixture was written: its
 * tombstones carry the versions of that afternoon, and under today's clock they would pass the
 * one-day grace and be purged, so the test's result would depend on the calendar (it did: it
 * passed on the day the fixture was made and failed from the day after).
 */
class StoreBeforeExpiryTest {
  /** The physical time of the fixture's versions is 2026-11-24T14:56:46.078Z (its first log record). */
  private static final long FIXTURE_CLOCK_MILLIS = Instant.parse("2026-11-24T15:00:00Z").toEpochMilli();

  private static final EngineOptions OPTIONS = EngineOptions.defaults().withEnv(Env.real().withWallClock(() -> FIXTURE_CLOCK_MILLIS));

  @TempDir Path dir;

  @Test
  void aStoreWrittenBeforeExpiryOpensWithItsRecordsAndTakesExpiringValues() throws URISyntaxException {
    EngineTesting.copyDirectory(fixture(), dir);
    long expiresAt;
    try (LsmEngine engine = LsmEngine.open(dir, OPTIONS, Hooks.none())) {
      assertStoreAsWritten(engine);
      expiresAt = FIXTURE_CLOCK_MILLIS + 3_600_000;
      engine.put(bytes("new"), bytes("expiring"), expiresAt);
    }
    try (LsmEngine reopened = LsmEngine.open(dir, OPTIONS, Hooks.none())) {
      assertStoreAsWritten(reopened);
      assertThat(reopened.get(bytes("new")).expiresAtMillis()).isEqualTo(expiresAt);
      reopened.compact(); // old and new records through one merge into one table
      assertStoreAsWritten(reopened);
      assertThat(reopened.get(bytes("new")).expiresAtMillis()).isEqualTo(expiresAt);
    }
  }

  private static void assertStoreAsWritten(LsmEngine engine) {
    for (int i = 0; i < 20; i++) {
      Entry e = engine.get(bytes("table-" + i));
      assertThat(e).as("table-" + i).isNotNull();
      assertThat(e.expiresAtMillis()).isEqualTo(Entry.NEVER);
      if (i == 3) {
        assertThat(e.isTombstone()).isTrue();
      } else {
        assertThat(text(e)).isEqualTo(i == 5 ? "newer-5" : "value-" + i);
      }
    }
    for (int i = 0; i < 10; i++) {
      Entry e = engine.get(bytes("log-" + i));
      assertThat(e).as("log-" + i).isNotNull();
      if (i == 4) {
        assertThat(e.isTombstone()).isTrue();
      } else {
        assertThat(text(e)).isEqualTo("logged-" + i);
      }
    }
    assertThat(EngineTesting.drain(engine.scan(new byte[0], null, false))).hasSize(20 - 1 + 10 - 1 + (engine.get(bytes("new")) == null ? 0 : 1));
  }

  private static String text(Entry e) {
    return new String(e.value(), StandardCharsets.UTF_8);
  }

  private static Path fixture() throws URISyntaxException {
    return Path.of(StoreBeforeExpiryTest.class.getResource("/stores/before-expiry/MANIFEST-000002").toURI()).getParent();
  }

}
