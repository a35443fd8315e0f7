package dev.shale.storage;

import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;

/**
 * Where a power loss strikes, for {@link CrashVfs#losePowerAt}: the {@code nth} call of {@code op}
 * on a file whose name matches {@code glob}.
 */
public record PowerLossPoint(VfsOp op, String glob, int nth) {
  /**
   * One of {@code kinds}, its {@code nth} drawn from 1 to the kind's own: the kinds give the most
   * calls of each operation a test's life makes.
   */
  public static PowerLossPoint draw(List<PowerLossPoint> kinds, Random random) {
    PowerLossPoint kind = kinds.get(random.nextInt(kinds.size()));
    return new PowerLossPoint(kind.op, kind.glob, 1 + random.nextInt(kind.nth));
  }

  /** True for this point's call, and for no other: a fresh count each time it is called. */
  public BiPredicate<VfsOp, Path> trigger() {
    PathMatcher names = Path.of("").getFileSystem().getPathMatcher("glob:" + glob);
    AtomicInteger seen = new AtomicInteger();
    return (calledOp, file) -> calledOp == op && names.matches(file.getFileName())
        && seen.incrementAndGet() == nth;
  }

  @Override
  public String toString() {
    return op + " #" + nth + " of " + glob;
  }
}
