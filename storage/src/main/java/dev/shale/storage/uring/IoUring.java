package dev.shale.storage.uring;

import static dev.shale.storage.uring.RingLayout.CQE_BYTES;
import static dev.shale.storage.uring.RingLayout.CQE_RES;
import static dev.shale.storage.uring.RingLayout.CQE_USER_DATA;
import static dev.shale.storage.uring.RingLayout.SQE_BYTES;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * A Linux io_uring for reads: a batch of reads of files queued in memory shared with the kernel,
 * submitted by one system call, each read's completion (its bytes read, or -errno) taken from
 * that memory without a call. One thread keeps many reads in flight, where with {@code pread}
 * each read in flight holds a thread blocked in the kernel (docs/design.md, "Reading tables").
 *
 * <p>Not thread safe: the ring has one owner thread, which queues ({@link #read}), submits
 * ({@link #submit}, {@link #submitAndWait}), reaps ({@link #reap}) and closes it. The kernel is
 * the other party to its memory.
 *
 * <p>Lifetime of a read's buffer: from {@link #read} until its completion is reaped, or the ring
 * closed ({@link #close} waits for the reads in flight). The kernel writes to it in between.
 */
public final class IoUring implements AutoCloseable {
  /*
   * The shared memory (include/uapi/linux/io_uring.h; RingLayout): the submission queue (SQ) is
   * an array of SQEs, a ring of their indexes, and a head the kernel moves as it consumes them and
   * a tail this thread moves as it adds them; the completion queue (CQ) is a ring of CQEs, a tail
   * the kernel moves as it posts them and a head this thread moves as it takes them. Each side
   * publishes its index with a release store after writing the entries, and reads the other's with
   * an acquire load before reading the entries: an entry is never read before it is whole.
   *
   * Invariants, kept by read() and reap():
   * - inFlight (queued or submitted, not yet reaped) <= entries: every queued read yields exactly
   *   one CQE (a read the kernel refuses at submission too), and the CQ holds at least `entries`
   *   (the kernel makes it twice the SQ), so the CQ never overflows, and the SQ, which holds at
   *   most the unsubmitted reads, never fills; read() refuses a read beyond that.
   * - The SQ ring's index array is the identity (slot i names SQE i), written once at open: a
   *   read fills the SQE at tail & mask.
   * - Without SQPOLL the kernel reads the SQ tail only inside io_uring_enter, so the tail is
   *   published there, once per batch.
   */
  private static final VarHandle INT = JAVA_INT.varHandle();
  private static final int MAX_ENTRIES = 32768; // the kernel's IORING_MAX_ENTRIES

  private final int ringFd;
  private final int entries;
  private final MappedRing mapped;
  private final MemorySegment sqRing;
  private final MemorySegment cqRing; // the same mapping as sqRing where the kernel offers one
  private final MemorySegment sqes;
  private final long sqTailOffset;
  private final int sqMask;
  private final long cqHeadOffset;
  private final long cqTailOffset;
  private final int cqMask;
  private final long cqesOffset;
  private final MemorySegment errno = LinuxCalls.errnoSegment(Arena.ofAuto());

  private int sqTail; // this thread's copy: the kernel never writes it
  private int cqHead; // likewise
  private int unsubmitted;
  private int inFlight;
  private boolean closed;

  /** What to do with each completion that {@link #reap} takes. */
  @FunctionalInterface
  public interface Completions {
    /**
     * One read completed: {@code userData} as given to {@link #read}; {@code result} the bytes
     * read (fewer than asked at the end of the file, 0 past it), or a negated errno ({@code
     * -9}, EBADF, for a descriptor that is not open). The handler may queue reads.
     */
    void completed(long userData, int result);
  }

  private IoUring(int ringFd, int entries, MappedRing mapped) {
    this.ringFd = ringFd;
    this.entries = entries;
    this.mapped = mapped;
    this.sqRing = mapped.sqRing;
    this.cqRing = mapped.cqRing;
    this.sqes = mapped.sqes;
    this.sqTailOffset = mapped.sqOffset(RingLayout.SQ_OFF_TAIL);
    this.sqMask = sqRing.get(JAVA_INT, mapped.sqOffset(RingLayout.SQ_OFF_RING_MASK));
    this.cqHeadOffset = mapped.cqOffset(RingLayout.CQ_OFF_HEAD);
    this.cqTailOffset = mapped.cqOffset(RingLayout.CQ_OFF_TAIL);
    this.cqMask = cqRing.get(JAVA_INT, mapped.cqOffset(RingLayout.CQ_OFF_RING_MASK));
    this.cqesOffset = mapped.cqOffset(RingLayout.CQ_OFF_CQES);
    this.sqTail = (int) INT.getAcquire(sqRing, sqTailOffset);
    this.cqHead = (int) INT.getAcquire(cqRing, cqHeadOffset);
    long array = mapped.sqOffset(RingLayout.SQ_OFF_ARRAY);
    for (int i = 0; i < entries; i++) sqRing.set(JAVA_INT, array + 4L * i, i);
  }

  /**
   * A ring for at least {@code entries} reads in flight (the kernel rounds it up to a power of
   * two: {@link #entries}), between 1 and 32768.
   *
   * @throws IoUringUnavailableException if this process cannot have one (callers read with
   *     {@code pread} instead)
   */
  public static IoUring open(int entries) throws IOException {
    if (entries < 1 || entries > MAX_ENTRIES) {
      throw new IllegalArgumentException("entries must be between 1 and " + MAX_ENTRIES + ": " + entries);
    }
    String arch = System.getProperty("os.arch", "");
    if (!System.getProperty("os.name", "").equals("Linux")
        || !(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
      throw new IoUringUnavailableException("io_uring: this ring knows Linux on x86-64 and aarch64 only, not "
          + System.getProperty("os.name") + " on " + arch);
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment params = arena.allocate(RingLayout.PARAMS_BYTES, 8); // zeroed: no flags asked for
      MemorySegment setupErrno = LinuxCalls.errnoSegment(arena);
      int fd = LinuxCalls.setup(setupErrno, entries, params);
      if (fd < 0) throw unavailable(LinuxCalls.errno(setupErrno));
      MappedRing mapped;
      try {
        mapped = MappedRing.map(fd, params, setupErrno);
      } catch (IOException | RuntimeException | Error e) {
        LinuxCalls.close(fd);
        throw e;
      }
      try {
        return new IoUring(fd, params.get(JAVA_INT, RingLayout.PARAMS_SQ_ENTRIES), mapped);
      } catch (RuntimeException | Error e) {
        mapped.unmap();
        LinuxCalls.close(fd);
        throw e;
      }
    }
  }

  private static IoUringUnavailableException unavailable(int code) {
    String why = switch (code) {
      case 38 -> ": this kernel has no io_uring (ENOSYS)";
      case 1 -> ": io_uring is disabled (sysctl kernel.io_uring_disabled) or forbidden here (a seccomp filter,"
          + " as container runtimes install)";
      case 12 -> ": no memory for the ring (the locked-memory limit, RLIMIT_MEMLOCK, on kernels before 5.12)";
      default -> "";
    };
    return new IoUringUnavailableException("io_uring_setup failed: " + LinuxCalls.describe(code) + why);
  }

  /** How many reads the ring holds in flight at most: the entries asked for, rounded up to a power of two. */
  public int entries() {
    return entries;
  }

  /** Reads queued or submitted whose completion has not been reaped. */
  public int inFlight() {
    return inFlight;
  }

  /**
   * Queues a read of {@code length} bytes of the file open as {@code fd} at {@code fileOffset} into
   * {@code buffer} (native memory, at least {@code length} long, valid until the completion is
   * reaped), to be submitted by the next {@link #submit} or {@link #submitAndWait}. For a
   * descriptor opened with {@code O_DIRECT} the buffer's address, the offset and the length must be
   * aligned to the device's logical block size, else the read completes with -EINVAL.
   *
   * @return false, queueing nothing, when {@link #entries} reads are in flight: reap first
   */
  public boolean read(int fd, MemorySegment buffer, long fileOffset, int length, long userData) {
    checkOpen();
    if (!buffer.isNative()) throw new IllegalArgumentException("the kernel reads into native memory only");
    if (length < 0 || length > buffer.byteSize()) {
      throw new IllegalArgumentException(length + " bytes do not fit a buffer of " + buffer.byteSize());
    }
    if (fileOffset < 0) throw new IllegalArgumentException("negative file offset: " + fileOffset);
    if (inFlight == entries) return false;
    long sqe = (long) (sqTail & sqMask) * SQE_BYTES;
    sqes.set(JAVA_BYTE, sqe + RingLayout.SQE_OPCODE, RingLayout.IORING_OP_READ);
    sqes.set(JAVA_BYTE, sqe + RingLayout.SQE_FLAGS, (byte) 0);
    sqes.set(JAVA_SHORT, sqe + RingLayout.SQE_IOPRIO, (short) 0);
    sqes.set(JAVA_INT, sqe + RingLayout.SQE_FD, fd);
    sqes.set(JAVA_LONG, sqe + RingLayout.SQE_OFF, fileOffset);
    sqes.set(JAVA_LONG, sqe + RingLayout.SQE_ADDR, buffer.address());
    sqes.set(JAVA_INT, sqe + RingLayout.SQE_LEN, length);
    sqes.set(JAVA_INT, sqe + RingLayout.SQE_RW_FLAGS, 0);
    sqes.set(JAVA_LONG, sqe + RingLayout.SQE_USER_DATA, userData);
    // The SQE is reused: zero what a previous one may have left (buffer index, personality, ...).
    sqes.set(JAVA_LONG, sqe + RingLayout.SQE_TAIL, 0L);
    sqes.set(JAVA_LONG, sqe + RingLayout.SQE_TAIL + 8, 0L);
    sqes.set(JAVA_LONG, sqe + RingLayout.SQE_TAIL + 16, 0L);
    sqTail++;
    unsubmitted++;
    inFlight++;
    return true;
  }

  /**
   * Submits the queued reads with one system call, without waiting for any to complete: how
   * many the kernel took (the rest stay queued for the next submission).
   *
   * @throws IOException if the kernel refuses the call (for want of memory: EAGAIN)
   */
  public int submit() throws IOException {
    checkOpen();
    return unsubmitted == 0 ? 0 : enter(0, 0);
  }

  /**
   * Submits the queued reads and waits until at least {@code minComplete} completions are ready to
   * {@link #reap}, in one system call (or until a signal interrupts the wait); how many reads the
   * kernel took.
   *
   * @throws IllegalStateException if fewer than {@code minComplete} reads are in flight: it would wait forever
   */
  public int submitAndWait(int minComplete) throws IOException {
    checkOpen();
    if (minComplete > inFlight) {
      throw new IllegalStateException("waiting for " + minComplete + " completions of " + inFlight + " reads in flight");
    }
    return enter(minComplete, RingLayout.IORING_ENTER_GETEVENTS);
  }

  private int enter(int minComplete, int flags) throws IOException {
    INT.setRelease(sqRing, sqTailOffset, sqTail);
    while (true) {
      int taken = LinuxCalls.enter(errno, ringFd, unsubmitted, minComplete, flags);
      if (taken >= 0) {
        unsubmitted -= taken;
        return taken;
      }
      int code = LinuxCalls.errno(errno);
      // Interrupted before it took anything (else it returns how many it took): again.
      if (code != LinuxCalls.EINTR) throw new IOException("io_uring_enter failed: " + LinuxCalls.describe(code));
    }
  }

  /**
   * Hands {@code handler} every completion ready now, oldest first, without a system call or a
   * wait; how many. Each read's place in the ring is free again before its handler runs.
   */
  public int reap(Completions handler) {
    checkOpen();
    int tail = (int) INT.getAcquire(cqRing, cqTailOffset);
    int reaped = 0;
    while (cqHead != tail) {
      long cqe = cqesOffset + (long) (cqHead & cqMask) * CQE_BYTES;
      long userData = cqRing.get(JAVA_LONG, cqe + CQE_USER_DATA);
      int result = cqRing.get(JAVA_INT, cqe + CQE_RES);
      cqHead++;
      INT.setRelease(cqRing, cqHeadOffset, cqHead); // the kernel may reuse the CQE now
      inFlight--;
      reaped++;
      handler.completed(userData, result);
    }
    return reaped;
  }

  /**
   * Has the kernel signal {@code eventFd} (an {@code eventfd(2)}) whenever it posts a completion,
   * so that a thread that waits in epoll, not in {@link #submitAndWait}, wakes to {@link #reap}:
   * how an event loop owns a ring. One eventfd per ring; {@link #close} drops it.
   */
  public void registerEventFd(int eventFd) throws IOException {
    checkOpen();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment fd = arena.allocate(JAVA_INT);
      fd.set(JAVA_INT, 0, eventFd);
      register(RingLayout.IORING_REGISTER_EVENTFD, fd, 1, "registering eventfd " + eventFd);
    }
  }

  /** Stops signalling the eventfd of {@link #registerEventFd}. */
  public void unregisterEventFd() throws IOException {
    checkOpen();
    register(RingLayout.IORING_UNREGISTER_EVENTFD, MemorySegment.NULL, 0, "unregistering the eventfd");
  }

  private void register(int opcode, MemorySegment arg, int count, String what) throws IOException {
    while (LinuxCalls.register(errno, ringFd, opcode, arg, count) < 0) {
      int code = LinuxCalls.errno(errno);
      if (code != LinuxCalls.EINTR) throw new IOException("io_uring_register " + what + " failed: " + LinuxCalls.describe(code));
    }
  }

  /**
   * Waits for the reads submitted and not reaped (their completions are dropped; reads queued and
   * never submitted are dropped unread), so their buffers may be freed once this returns; then
   * unmaps the ring and closes its descriptor. Closing twice does nothing.
   */
  @Override
  public void close() throws IOException {
    if (closed) return;
    try {
      // Reads never submitted are taken back: the kernel takes no more than it is told to submit.
      sqTail -= unsubmitted;
      inFlight -= unsubmitted;
      unsubmitted = 0;
      while (inFlight > 0) {
        enter(inFlight, RingLayout.IORING_ENTER_GETEVENTS);
        reap((userData, result) -> {});
      }
    } finally {
      closed = true;
      mapped.unmap();
      LinuxCalls.close(ringFd);
    }
  }

  /** The ring's own descriptor, for tests that check it is closed. */
  int descriptor() {
    return ringFd;
  }

  private void checkOpen() {
    if (closed) throw new IllegalStateException("the ring is closed");
  }
}
