package dev.shale.storage.uring;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * The three regions of a new ring mapped into this process: the SQ ring, the CQ ring (the same
 * mapping when the kernel offers IORING_FEAT_SINGLE_MMAP, as every kernel since 5.4 does) and the
 * SQE array, with the offsets of their fields the kernel gave in {@code io_uring_params}.
 */
final class MappedRing {
  final MemorySegment sqRing;
  final MemorySegment cqRing;
  final MemorySegment sqes;
  private final MemorySegment params; // io_uring_params: read only while the ring is being made

  private MappedRing(MemorySegment sqRing, MemorySegment cqRing, MemorySegment sqes, MemorySegment params) {
    this.sqRing = sqRing;
    this.cqRing = cqRing;
    this.sqes = sqes;
    this.params = params;
  }

  /** Maps the ring {@code ringFd} that io_uring_setup described in {@code params}; unmaps what it mapped on failure. */
  static MappedRing map(int ringFd, MemorySegment params, MemorySegment errno) throws IOException {
    int sqEntries = params.get(JAVA_INT, RingLayout.PARAMS_SQ_ENTRIES);
    int cqEntries = params.get(JAVA_INT, RingLayout.PARAMS_CQ_ENTRIES);
    // IoUring's invariant that the CQ never overflows needs a CQ at least as large as the SQ.
    if (cqEntries < sqEntries) {
      throw new IllegalStateException("the kernel made a CQ of " + cqEntries + " for an SQ of " + sqEntries);
    }
    long sqBytes = params.get(JAVA_INT, RingLayout.PARAMS_SQ_OFF + RingLayout.SQ_OFF_ARRAY) + 4L * sqEntries;
    long cqBytes = params.get(JAVA_INT, RingLayout.PARAMS_CQ_OFF + RingLayout.CQ_OFF_CQES) + RingLayout.CQE_BYTES * cqEntries;
    boolean single = (params.get(JAVA_INT, RingLayout.PARAMS_FEATURES) & RingLayout.IORING_FEAT_SINGLE_MMAP) != 0;

    MemorySegment sqRing = map(errno, ringFd, single ? Math.max(sqBytes, cqBytes) : sqBytes, RingLayout.IORING_OFF_SQ_RING, "SQ ring");
    try {
      MemorySegment cqRing = single ? sqRing : map(errno, ringFd, cqBytes, RingLayout.IORING_OFF_CQ_RING, "CQ ring");
      try {
        MemorySegment sqes = map(errno, ringFd, RingLayout.SQE_BYTES * sqEntries, RingLayout.IORING_OFF_SQES, "SQE array");
        return new MappedRing(sqRing, cqRing, sqes, params);
      } catch (IOException | RuntimeException | Error e) {
        if (!single) LinuxCalls.unmap(cqRing);
        throw e;
      }
    } catch (IOException | RuntimeException | Error e) {
      LinuxCalls.unmap(sqRing);
      throw e;
    }
  }

  private static MemorySegment map(MemorySegment errno, int ringFd, long bytes, long offset, String what)
      throws IOException {
    MemorySegment mapping = LinuxCalls.mapRing(errno, ringFd, bytes, offset);
    if (mapping.equals(MemorySegment.NULL)) {
      throw new IoUringUnavailableException("mmap of the io_uring " + what + " failed: "
          + LinuxCalls.describe(LinuxCalls.errno(errno)));
    }
    return mapping;
  }

  /** Unmaps the three regions (two where the rings share one mapping). */
  void unmap() {
    LinuxCalls.unmap(sqes);
    LinuxCalls.unmap(sqRing);
    if (cqRing.address() != sqRing.address()) LinuxCalls.unmap(cqRing);
  }

  /** Where a field of io_sqring_offsets ({@code RingLayout.SQ_OFF_*}) lies in the SQ ring. */
  long sqOffset(long field) {
    return Integer.toUnsignedLong(params.get(JAVA_INT, RingLayout.PARAMS_SQ_OFF + field));
  }

  /** Where a field of io_cqring_offsets ({@code RingLayout.CQ_OFF_*}) lies in the CQ ring. */
  long cqOffset(long field) {
    return Integer.toUnsignedLong(params.get(JAVA_INT, RingLayout.PARAMS_CQ_OFF + field));
  }
}
