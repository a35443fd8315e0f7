package dev.shale.storage.uring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link IoUring} on real files through real system calls: many reads in flight give each its
 * own bytes of the file; a full ring refuses a read until one is reaped; a read past the end is
 * short, one of a bad descriptor fails alone; the eventfd signals completions; close gives back
 * the ring's descriptor and mappings. Skipped, saying why, where this host has no io_uring.
 */
class IoUringTest {
  @TempDir Path dir;

  /** A ring, or the test skipped (aborted) with the reason printed, where io_uring is unavailable. */
  static IoUring openOrSkip(int entries) throws IOException {
    try {
      return IoUring.open(entries);
    } catch (IoUringUnavailableException e) {
      System.out.println("io_uring unavailable, test skipped: " + e.getMessage());
      Assumptions.abort("io_uring unavailable: " + e.getMessage());
      throw e; // not reached
    }
  }

  @Test
  void manyReadsInFlightAtRandomOffsetsEachGetTheFilesBytesThere() throws Throwable {
    long seed = TestSeed.forTest("manyReadsInFlightAtRandomOffsetsEachGetTheFilesBytesThere");
    Random random = new Random(seed);
    byte[] content = new byte[1 << 20];
    random.nextBytes(content);
    Path file = dir.resolve("data");
    Files.write(file, content);

    int fd = TestLibc.openForReading(file);
    try (IoUring ring = openOrSkip(64); Arena arena = Arena.ofConfined()) {
      Map<Long, long[]> pending = new HashMap<>(); // userData -> {offset, length}
      Map<Long, MemorySegment> buffers = new HashMap<>();
      int issued = 0;
      int verified = 0;
      int mostInFlight = 0;
      while (verified < 2000) {
        while (issued < 2000) {
          long offset = random.nextInt(content.length);
          int length = 1 + random.nextInt((int) Math.min(16_384, content.length - offset));
          MemorySegment buffer = arena.allocate(length);
          if (!ring.read(fd, buffer, offset, length, issued)) break;
          pending.put((long) issued, new long[] {offset, length});
          buffers.put((long) issued, buffer);
          issued++;
        }
        mostInFlight = Math.max(mostInFlight, ring.inFlight());
        ring.submitAndWait(1);
        verified += ring.reap((userData, result) -> {
          long[] read = pending.remove(userData);
          assertThat(read).as("a completion of read %d, given once", userData).isNotNull();
          assertThat(result).as("bytes read by read %d", userData).isEqualTo((int) read[1]);
          byte[] expected = Arrays.copyOfRange(content, (int) read[0], (int) (read[0] + read[1]));
          assertThat(buffers.remove(userData).toArray(ValueLayout.JAVA_BYTE))
              .as("%d bytes at %d", read[1], read[0]).isEqualTo(expected);
        });
      }
      assertThat(pending).isEmpty();
      assertThat(ring.inFlight()).isZero();
      assertThat(mostInFlight).as("reads in flight at once").isEqualTo(ring.entries());
    } finally {
      TestLibc.close(fd);
    }
  }

  @Test
  void aFullRingRefusesAReadUntilACompletionIsReaped() throws Throwable {
    Path file = dir.resolve("data");
    Files.write(file, new byte[64 << 10]);
    int fd = TestLibc.openForReading(file);
    try (IoUring ring = openOrSkip(4); Arena arena = Arena.ofConfined()) {
      assertThat(ring.entries()).isEqualTo(4);
      MemorySegment buffer = arena.allocate(4096L * 5);
      for (int i = 0; i < 4; i++) assertThat(ring.read(fd, buffer.asSlice(4096L * i), 4096L * i, 4096, i)).isTrue();
      assertThat(ring.read(fd, buffer.asSlice(4096L * 4), 0, 4096, 4)).as("a fifth read on a ring of 4").isFalse();

      assertThat(ring.submitAndWait(4)).as("reads submitted").isEqualTo(4);
      assertThat(ring.read(fd, buffer.asSlice(4096L * 4), 0, 4096, 4)).as("still full until reaped").isFalse();
      List<Long> completed = new ArrayList<>();
      assertThat(ring.reap((userData, result) -> completed.add(userData))).isEqualTo(4);
      assertThat(completed).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);

      assertThat(ring.read(fd, buffer.asSlice(4096L * 4), 0, 4096, 4)).as("room again").isTrue();
      ring.submitAndWait(1);
      assertThat(ring.reap((userData, result) -> assertThat(result).isEqualTo(4096))).isEqualTo(1);
      assertThatThrownBy(() -> ring.submitAndWait(1)).as("a wait for a read never made")
          .isInstanceOf(IllegalStateException.class);
    } finally {
      TestLibc.close(fd);
    }
  }

  @Test
  void aReadPastTheEndIsShortAndAReadOfABadDescriptorFailsAloneWithEbadf() throws Throwable {
    Path file = dir.resolve("data");
    byte[] content = new byte[10_000];
    new Random(1).nextBytes(content);
    Files.write(file, content);
    int fd = TestLibc.openForReading(file);
    try (IoUring ring = openOrSkip(8); Arena arena = Arena.ofConfined()) {
      MemorySegment tail = arena.allocate(4096);
      MemorySegment beyond = arena.allocate(4096);
      MemorySegment good = arena.allocate(100);
      ring.read(fd, tail, 8192, 4096, 1);
      ring.read(fd, beyond, 20_000, 4096, 2);
      ring.read(-1, arena.allocate(4096), 0, 4096, 3);
      ring.read(fd, good, 50, 100, 4);
      ring.submitAndWait(4);
      Map<Long, Integer> results = new HashMap<>();
      ring.reap((userData, result) -> results.put(userData, result));
      assertThat(results).containsExactlyInAnyOrderEntriesOf(
          Map.of(1L, 10_000 - 8192, 2L, 0, 3L, -LinuxCalls.EBADF, 4L, 100));
      assertThat(tail.asSlice(0, 10_000 - 8192).toArray(ValueLayout.JAVA_BYTE))
          .isEqualTo(Arrays.copyOfRange(content, 8192, 10_000));
      assertThat(good.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(Arrays.copyOfRange(content, 50, 150));

      // The ring goes on after a failed read.
      ring.read(fd, good, 0, 100, 5);
      ring.submitAndWait(1);
      assertThat(ring.reap((userData, result) -> assertThat(result).isEqualTo(100))).isEqualTo(1);
    } finally {
      TestLibc.close(fd);
    }
  }

  @Test
  void theRegisteredEventFdCountsCompletionsUntilUnregistered() throws Throwable {
    Path file = dir.resolve("data");
    Files.write(file, new byte[8192]);
    int fd = TestLibc.openForReading(file);
    int eventFd = TestLibc.eventFd();
    try (IoUring ring = openOrSkip(8); Arena arena = Arena.ofConfined()) {
      MemorySegment buffer = arena.allocate(4096);
      ring.registerEventFd(eventFd);
      assertThat(TestLibc.readEventFd(eventFd)).as("before any completion").isEqualTo(-TestLibc.EAGAIN);

      ring.read(fd, buffer, 0, 4096, 1);
      ring.read(fd, buffer, 4096, 4096, 2);
      ring.submitAndWait(2);
      long signalled = TestLibc.readEventFd(eventFd);
      assertThat(signalled).as("the eventfd's count after two completions").isBetween(1L, 2L);
      assertThat(ring.reap((userData, result) -> {})).isEqualTo(2);

      ring.unregisterEventFd();
      ring.read(fd, buffer, 0, 4096, 3);
      ring.submitAndWait(1);
      assertThat(TestLibc.readEventFd(eventFd)).as("after unregistering").isEqualTo(-TestLibc.EAGAIN);
      assertThat(ring.reap((userData, result) -> {})).isEqualTo(1);
    } finally {
      TestLibc.close(eventFd);
      TestLibc.close(fd);
    }
  }

  @Test
  void closeWaitsForReadsInFlightThenGivesBackTheDescriptorAndMappings() throws Throwable {
    Path file = dir.resolve("data");
    Files.write(file, new byte[64 << 10]);
    int fd = TestLibc.openForReading(file);
    long mappingsBefore = ringMappings();
    IoUring ring = openOrSkip(16);
    Path ringLink = Path.of("/proc/self/fd", Integer.toString(ring.descriptor()));
    try (Arena arena = Arena.ofConfined()) {
      assertThat(Files.readSymbolicLink(ringLink).toString()).contains("io_uring");
      assertThat(ringMappings()).as("the ring's mappings").isGreaterThan(mappingsBefore);
      for (int i = 0; i < 8; i++) ring.read(fd, arena.allocate(4096), 4096L * i, 4096, i);
      ring.submit();
      for (int i = 8; i < 12; i++) ring.read(fd, arena.allocate(4096), 4096L * i, 4096, i); // queued, never submitted
      ring.close();
      assertThat(ring.inFlight()).as("reads in flight after close").isZero();
    } finally {
      TestLibc.close(fd);
    }
    assertThat(ringMappings()).as("the ring's mappings after close").isEqualTo(mappingsBefore);
    assertThat(!Files.isSymbolicLink(ringLink) || !Files.readSymbolicLink(ringLink).toString().contains("io_uring"))
        .as("the ring's descriptor is closed").isTrue();
    assertThatThrownBy(() -> ring.read(fd, MemorySegment.NULL, 0, 0, 0)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> ring.reap((userData, result) -> {})).isInstanceOf(IllegalStateException.class);
    ring.close(); // a second close does nothing
  }

  @Test
  void readsTheKernelCannotTakeAreRefusedBeforeTheyReachIt() throws Throwable {
    assertThatThrownBy(() -> IoUring.open(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> IoUring.open(40_000)).isInstanceOf(IllegalArgumentException.class);
    try (IoUring ring = openOrSkip(2); Arena arena = Arena.ofConfined()) {
      MemorySegment heap = MemorySegment.ofArray(new byte[4096]);
      assertThatThrownBy(() -> ring.read(0, heap, 0, 4096, 1)).as("a buffer on the Java heap, which the GC moves")
          .isInstanceOf(IllegalArgumentException.class);
      MemorySegment small = arena.allocate(100);
      assertThatThrownBy(() -> ring.read(0, small, 0, 101, 1)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> ring.read(0, small, -1, 100, 1)).isInstanceOf(IllegalArgumentException.class);
      assertThat(ring.inFlight()).isZero();
    }
  }

  // The lines of /proc/self/maps that map an io_uring (the kernel names them anon_inode:[io_uring]).
  private static long ringMappings() throws IOException {
    return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(line -> line.contains("io_uring")).count();
  }
}
