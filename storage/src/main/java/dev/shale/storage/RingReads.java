package dev.shale.storage;

import dev.shale.storage.uring.IoUring;
import java.lang.foreign.MemorySegment;

/**
 * Direct reads of a file of {@link Vfs#realDirect()} queued on an {@link IoUring}: how code
 * outside this package has the kernel read a file's aligned blocks without ever holding the
 * file's descriptor, which stays with {@link PosixFile}.
 *
 * <p>The file must stay open until every read queued on it is reaped (or its ring closed): the
 * kernel reads through the descriptor it was given, whatever that number names by then.
 */
public final class RingReads {
  /**
   * What the position, length and buffer address of a read must be multiples of: as for every
   * {@code O_DIRECT} read ({@code PosixFile.DIRECT_ALIGNMENT}).
   */
  public static final long ALIGNMENT = PosixFile.DIRECT_ALIGNMENT;

  private RingReads() {}

  /**
   * Whether {@link #queueDirect} can read {@code file}: a file opened by {@link Vfs#realDirect()}
   * on a file system that allows {@code O_DIRECT}.
   */
  public static boolean canQueue(Vfs.ReadableFile file) {
    return file instanceof PosixReadableFile posix && posix.direct() != null;
  }

  /**
   * Queues on {@code ring} a direct read of {@code length} bytes of {@code file} at {@code
   * position} into {@code alignedBuffer} (position, length and the buffer's address multiples of
   * {@link #ALIGNMENT}): {@link IoUring#read}, whose completion carries {@code userData}. False
   * when the ring is full.
   *
   * @throws IllegalArgumentException if {@code file} is not one {@link #canQueue} reads, or a
   *     read is not aligned
   */
  public static boolean queueDirect(IoUring ring, Vfs.ReadableFile file, MemorySegment alignedBuffer, long position,
      int length, long userData) {
    if (!(file instanceof PosixReadableFile posix) || posix.direct() == null) {
      throw new IllegalArgumentException("not a file of Vfs.realDirect() open with O_DIRECT: " + file);
    }
    if (position % ALIGNMENT != 0 || length % ALIGNMENT != 0 || alignedBuffer.address() % ALIGNMENT != 0) {
      throw new IllegalArgumentException("a direct read of " + length + " bytes at " + position + " into address "
          + alignedBuffer.address() + " is not aligned to " + ALIGNMENT);
    }
    PosixFile direct = posix.direct();
    return ring.read(direct.descriptor(), alignedBuffer, position, length, userData);
  }
}
