package dev.shale.storage.io;

import java.util.Arrays;

/**
 * Candidate frames waiting for the crc pass of {@link FrameScan} to reach their end, the one with
 * the lowest end offset first: a binary min-heap in parallel arrays (no object per candidate),
 * holding at most {@code maxSize} of them, 20 bytes each.
 *
 * <p>Thread safety: none; one scan owns it.
 */
final class PendingFrames {
  private static final int INITIAL_CAPACITY = 64;

  private final int maxSize;
  private long[] ends = new long[INITIAL_CAPACITY];
  private long[] starts = new long[INITIAL_CAPACITY];
  private int[] crcsAtStart = new int[INITIAL_CAPACITY];
  private int size;

  PendingFrames(int maxSize) {
    this.maxSize = maxSize;
  }

  /**
   * Adds the frame over [{@code start}, {@code end}), with the pass's crc where its crc-covered
   * bytes begin; false, adding nothing, if {@code maxSize} frames wait already.
   */
  boolean add(long start, long end, int crcAtStart) {
    if (size == maxSize) return false;
    if (size == ends.length) grow();
    int at = size++;
    // Invariant (heap order): a parent's end is at most its children's.
    while (at > 0 && ends[(at - 1) / 2] > end) {
      move((at - 1) / 2, at);
      at = (at - 1) / 2;
    }
    set(at, start, end, crcAtStart);
    return true;
  }

  boolean isEmpty() {
    return size == 0;
  }

  long firstEnd() {
    return ends[0];
  }

  long firstStart() {
    return starts[0];
  }

  int firstCrcAtStart() {
    return crcsAtStart[0];
  }

  void removeFirst() {
    size--;
    if (size == 0) return;
    long start = starts[size];
    long end = ends[size];
    int crc = crcsAtStart[size];
    int at = 0;
    while (true) {
      int child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && ends[child + 1] < ends[child]) child++;
      if (ends[child] >= end) break;
      move(child, at);
      at = child;
    }
    set(at, start, end, crc);
  }

  private void grow() {
    int capacity = (int) Math.min((long) ends.length * 2, maxSize);
    ends = Arrays.copyOf(ends, capacity);
    starts = Arrays.copyOf(starts, capacity);
    crcsAtStart = Arrays.copyOf(crcsAtStart, capacity);
  }

  private void move(int from, int to) {
    set(to, starts[from], ends[from], crcsAtStart[from]);
  }

  private void set(int at, long start, long end, int crcAtStart) {
    starts[at] = start;
    ends[at] = end;
    crcsAtStart[at] = crcAtStart;
  }
}
