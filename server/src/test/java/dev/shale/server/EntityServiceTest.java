package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.storage.WriteStallException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The service without HTTP: results for each call, over a real engine. */
class EntityServiceTest {
  @TempDir Path dir;
  Engine engine;
  EntityService service;

  @BeforeEach
  void open() {
    engine = Engine.open(dir, EngineOptions.defaults());
    service = new EntityService(engine, Env.real());
  }

  @AfterEach
  void close() {
    engine.close();
  }

  @Test
  void putGetDelete() throws Exception {
    byte[] key = EntityService.keyOf("id=k");
    assertThat(service.get(key)).isEqualTo(EntityResult.NOT_FOUND);
    assertThat(service.put(key, bytes("v"))).isEqualTo(EntityResult.STORED);
    EntityResult found = service.get(key);
    assertThat(found.outcome()).isEqualTo(EntityResult.Outcome.FOUND);
    assertThat(found.value()).isEqualTo(bytes("v"));
    assertThat(service.delete(key)).isEqualTo(EntityResult.DELETED);
    // A tombstone reads as absent, with its version (the GET's 404 says it: X-Shale-Version).
    EntityResult deleted = service.get(key);
    assertThat(deleted.outcome()).as("a tombstone reads as absent").isEqualTo(EntityResult.Outcome.NOT_FOUND);
    assertThat(deleted.isTombstone()).isTrue();
    assertThat(deleted.version()).isGreaterThan(found.version());
  }

  @Test
  void readsFromMemoryAnswerAsTheReadsDoOrNotAtAll() {
    byte[] small = bytes("small");
    byte[] large = bytes("large");
    byte[] largeValue = new byte[Engine.LEND_MIN_VALUE_BYTES * 2];
    java.util.Arrays.fill(largeValue, (byte) 3);
    service.put(small, bytes("v"));
    service.put(large, largeValue);

    // A value lent by get is lent from memory too; read's copy is a copy, its lease ended.
    EntityResult lent = service.getFromMemory(large);
    assertThat(lent).isNotNull();
    assertThat(lent.lent()).isNotNull();
    lent.closeLease();
    EntityResult copied = service.readFromMemory(large);
    assertThat(copied).isNotNull();
    assertThat(copied.lent()).isNull();
    assertThat(copied.value()).isEqualTo(largeValue);
    assertThat(copied.version()).isEqualTo(service.read(large).version());
    assertThat(engine.stats().valueLeases()).as("no lease left open").isZero();
    assertThat(service.readFromMemory(small).value()).isEqualTo(bytes("v"));
    assertThat(service.getFromMemory(bytes("absent"))).isEqualTo(EntityResult.NOT_FOUND);

    EntityService onDisk = new EntityService(new ForwardingEngine(engine), Env.real()); // answers nothing from memory
    assertThat(onDisk.getFromMemory(small)).as("needs the disk: no answer").isNull();
    assertThat(onDisk.readFromMemory(small)).isNull();
  }

  @Test
  void whileMemoryCannotAnswerReadsMostOfThemDoNotTry() {
    java.util.concurrent.atomic.AtomicInteger tries = new java.util.concurrent.atomic.AtomicInteger();
    EntityService onDisk = new EntityService(new ForwardingEngine(engine) {
      @Override
      public dev.shale.storage.MemoryRead readFromMemory(byte[] key) {
        tries.incrementAndGet();
        return dev.shale.storage.MemoryRead.NEEDS_DISK; // a store far larger than its caches
      }
    }, Env.real());
    for (int i = 0; i < 1_000; i++) assertThat(onDisk.getFromMemory(bytes("k" + i))).isNull();
    // 44 tries take the share of answered ones below a quarter; from then on one read in 16 tries.
    assertThat(tries.get()).as("tries of 1000 reads").isLessThanOrEqualTo(45 + 1_000 / MemoryReadOdds.SAMPLE);
  }

  @Test
  void writeStallIsOverloadedNotFailed() {
    EntityService stalled = new EntityService(new ForwardingEngine(engine) {
      @Override
      public long put(byte[] key, byte[] value) {
        throw new WriteStallException("flush behind");
      }
    }, Env.real());
    EntityResult result = stalled.put(bytes("k"), bytes("v"));
    assertThat(result.outcome()).isEqualTo(EntityResult.Outcome.OVERLOADED);
    assertThat(result.reason()).contains("flush behind");
    assertThat(service.get(bytes("k"))).isEqualTo(EntityResult.NOT_FOUND);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
