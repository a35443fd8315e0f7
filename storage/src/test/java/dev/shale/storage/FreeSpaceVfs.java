package dev.shale.storage;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The real filesystem, except that its free space is what the test sets ({@link #setFreeBytes}),
 * and each reading of it is counted: for the tests of when the engine reads the free space.
 */
public final class FreeSpaceVfs extends ForwardingVfs {
  private final AtomicLong freeBytes;
  private final AtomicLong readings = new AtomicLong();

  public FreeSpaceVfs(long freeBytes) {
    super(Vfs.real());
    this.freeBytes = new AtomicLong(freeBytes);
  }

  public void setFreeBytes(long bytes) {
    freeBytes.set(bytes);
  }

  /** How often the free space was read. */
  public long readings() {
    return readings.get();
  }

  @Override
  public long usableSpace(Path directory) {
    readings.incrementAndGet();
    return freeBytes.get();
  }
}
