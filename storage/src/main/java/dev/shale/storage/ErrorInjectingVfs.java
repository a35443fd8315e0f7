package dev.shale.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Vfs} that passes every operation to another one, except those a test's {@link Fault}s
 * pick: those throw an IOException carrying the kernel's message for {@link Errno#EIO} or
 * {@link Errno#ENOSPC}, as a FileChannel would. A failed append first writes half of its bytes, as
 * a write that runs out of space or dies midway does, so the file is left with a torn tail.
 *
 * <p>Faults pick operations by {@link VfsOp kind}, by a glob on the file name ({@code "*.wal"},
 * {@code "MANIFEST-*"}), and by when: every matching call, the Nth only, every one from the Nth on,
 * or a seeded chance. They can be added and cleared at any time ({@link #clear}: the disk heals).
 * {@link Vfs#exists} cannot fail (it throws nothing). Thread safe.
 *
 * <p>In main code, as {@link CrashVfs} is, for the simulator's disk faults ({@code dev.shale.sim}).
 */
public final class ErrorInjectingVfs extends ForwardingVfs {
  /** The error injected, with the message Linux gives for it. */
  public enum Errno {
    EIO("Input/output error"),
    ENOSPC("No space left on device");

    final String message;

    Errno(String message) {
      this.message = message;
    }
  }

  /** Which calls fail, how, and how often; counts the calls it matched and the errors it threw. */
  public static final class Fault {
    private final Set<VfsOp> ops;
    private final PathMatcher names;
    private final String glob;
    private Errno errno = Errno.EIO;
    private long firstCall = 1;
    private long lastCall = Long.MAX_VALUE;
    private double chance = 1;
    private final AtomicLong matched = new AtomicLong();
    private final AtomicLong injected = new AtomicLong();

    private Fault(Set<VfsOp> ops, String glob) {
      this.ops = ops;
      this.glob = glob;
      this.names = FileSystems.getDefault().getPathMatcher("glob:" + glob);
    }

    /** Every call of {@code ops} (all of them if none named) on a file whose name matches {@code glob}. */
    public static Fault on(String glob, VfsOp... ops) {
      return new Fault(ops.length == 0 ? EnumSet.allOf(VfsOp.class) : EnumSet.of(ops[0], ops), glob);
    }

    /**
     * A fault on {@code ops} of {@code glob}, drawn from {@code random}: EIO or ENOSPC, on the
     * Nth matching call only, on every one from the Nth on, or on each by a chance of 5 to 35%;
     * N up to 4 (for the kinds of call a test makes a few of) or up to {@code mostCalls}.
     */
    public static Fault drawn(Random random, int mostCalls, String glob, VfsOp... ops) {
      Fault fault = on(glob, ops).errno(random.nextBoolean() ? Errno.EIO : Errno.ENOSPC);
      int nth = 1 + random.nextInt(random.nextBoolean() ? 4 : mostCalls);
      return switch (random.nextInt(3)) {
        case 0 -> fault.nthCall(nth);
        case 1 -> fault.fromCall(nth);
        default -> fault.chance(0.05 + random.nextDouble() * 0.3);
      };
    }

    public Fault errno(Errno e) {
      this.errno = e;
      return this;
    }

    /** Only the {@code n}th matching call (counted from 1) fails. */
    public Fault nthCall(long n) {
      firstCall = n;
      lastCall = n;
      return this;
    }

    /** Every matching call from the {@code n}th on fails (a disk that filled up and stays full). */
    public Fault fromCall(long n) {
      firstCall = n;
      return this;
    }

    /** Each matching call fails with this probability, drawn from the filesystem's seed. */
    public Fault chance(double probability) {
      chance = probability;
      return this;
    }

    /** The message of the errors this fault throws. */
    public String message() {
      return errno.message;
    }

    /** Matching calls so far, failed or not. */
    public long matched() {
      return matched.get();
    }

    /** Errors thrown so far. */
    public long injected() {
      return injected.get();
    }

    boolean fires(VfsOp op, Path file, Random random) {
      Path name = file.getFileName();
      if (!ops.contains(op) || name == null || !names.matches(name)) return false;
      long call = matched.incrementAndGet();
      if (call < firstCall || call > lastCall) return false;
      if (chance < 1 && random.nextDouble() >= chance) return false;
      injected.incrementAndGet();
      return true;
    }

    @Override
    public String toString() {
      return errno + " on " + ops + " of " + glob;
    }
  }

  private final Random random;
  private final List<Fault> faults = new CopyOnWriteArrayList<>();
  private final Map<VfsOp, AtomicLong> calls = new EnumMap<>(VfsOp.class);

  /** Over {@code delegate}; {@code seed} drives the faults given a {@linkplain Fault#chance chance}. */
  public ErrorInjectingVfs(Vfs delegate, long seed) {
    super(delegate);
    this.random = new Random(seed);
    for (VfsOp op : VfsOp.values()) calls.put(op, new AtomicLong());
  }

  /** Over the real filesystem. */
  public ErrorInjectingVfs(long seed) {
    this(Vfs.real(), seed);
  }

  /** Adds {@code fault}, which applies from the next call on; returns it, to read its counts. */
  public Fault inject(Fault fault) {
    faults.add(fault);
    return fault;
  }

  /** Removes every fault: the disk works again. */
  public void clear() {
    faults.clear();
  }

  /** Calls of {@code op} so far, failed or not. */
  public long calls(VfsOp op) {
    return counter(op).get();
  }

  private AtomicLong counter(VfsOp op) {
    return Objects.requireNonNull(calls.get(op), "the constructor made a counter of every op");
  }

  private void check(VfsOp op, Path file) throws IOException {
    counter(op).incrementAndGet();
    for (Fault fault : faults) {
      boolean fires;
      synchronized (random) {
        fires = fault.fires(op, file, random);
      }
      if (fires) throw new IOException(file + ": " + fault.errno.message + " (injected " + op + ")");
    }
  }

  @Override
  protected <T> T around(VfsOp op, Path file, IoCall<T> call) throws IOException {
    check(op, file);
    return call.call();
  }

  @Override
  protected WritableFile writable(Path file, WritableFile created) {
    return new ForwardingWritableFile(file, created) {
      @Override
      public int append(ByteBuffer source) throws IOException {
        try {
          check(VfsOp.APPEND, file);
        } catch (IOException e) {
          ByteBuffer half = source.slice(source.position(), source.remaining() / 2);
          while (half.hasRemaining()) created.append(half);
          throw e;
        }
        return created.append(source);
      }
    };
  }
}
