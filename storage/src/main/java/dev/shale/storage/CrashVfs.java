package dev.shale.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A filesystem that loses power: it keeps only what was synced, file data and directory entries,
 * and when the power is lost writes that durable state, and nothing else, into a fresh directory
 * (the disk as it is when the power comes back). Until then files live in the real directory
 * under {@code root} and reads see every byte written, as they see the page cache.
 *
 * <p>The model, and why it is enough: the engine's files are written once, from start to end
 * ({@link Vfs}'s contract), so a file's durable content is its first {@code syncedLength} bytes.
 * A name is durable once its directory is synced: a file created but not yet named durably
 * vanishes; a file deleted or renamed away while its directory entry is not yet synced comes back
 * with its synced content (kept in memory when it is deleted). Anything that breaks the model
 * fails loudly (IllegalStateException): a file changed behind this filesystem's back, an append
 * to a deleted file. Directories are taken as durable once created (the engine creates its
 * directory once, before any file), and unsynced bytes are dropped whole: no torn page survives.
 *
 * <p>Power is lost at a call of the test's choosing ({@link #losePowerAt}) or when the test says
 * so ({@link #powerLoss}); from then on every operation of this filesystem, on any handle, fails with an IOException,
 * so the abandoned engine can write nothing more. Thread safe: one lock orders every operation.
 *
 * <p>In main code, not only in tests, because the simulator ({@code dev.shale.sim}) runs each
 * node's engine on one: its crashes are power losses of this filesystem.
 */
@SuppressForbidden(reason = "a simulated disk over real files: it stands for the disk, as RealVfs does, and is never a node's own in production")
public final class CrashVfs extends ForwardingVfs {
  /** A file's content as the filesystem tracks it (an inode). */
  private static final class Inode {
    @Nullable Path livePath; // its name now, or null once deleted
    long length;
    long syncedLength;
    byte @Nullable [] contentAfterDelete; // its synced bytes, kept once it is deleted

    Inode(Path livePath, long length, long syncedLength) {
      this.livePath = livePath;
      this.length = length;
      this.syncedLength = syncedLength;
    }
  }

  private final Path root;
  private final Path survivors;
  private final Map<Path, Inode> live = new HashMap<>(); // guarded by this
  private final Map<Path, Inode> durable = new HashMap<>(); // guarded by this
  private final Map<VfsOp, Long> calls = new EnumMap<>(VfsOp.class); // guarded by this
  private BiPredicate<VfsOp, Path> trigger = (op, file) -> false; // guarded by this
  private Consumer<Path> onAppend = file -> {}; // guarded by this
  private Consumer<Path> onSync = file -> {}; // guarded by this
  private @Nullable String lostAt; // guarded by this

  /**
   * Over the files under {@code root} (created if missing); those already there are durable, as
   * after a clean shutdown. Every path used must lie under {@code root}. When the power is lost,
   * what survives is written to {@code survivors}, a directory that must not exist yet.
   */
  public CrashVfs(Path root, Path survivors) throws IOException {
    this(root, survivors, Vfs.real());
  }

  /**
   * As {@link #CrashVfs(Path, Path)}, over {@code real} instead of {@link Vfs#real()}: over
   * {@link Vfs#realDirect()}, the tables' blocks are read with O_DIRECT.
   */
  public CrashVfs(Path root, Path survivors, Vfs real) throws IOException {
    super(real);
    this.root = root.toAbsolutePath().normalize();
    this.survivors = survivors;
    Files.createDirectories(this.root);
    try (Stream<Path> files = Files.walk(this.root)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        long size = Files.size(file);
        Inode inode = new Inode(file, size, size);
        live.put(file, inode);
        durable.put(file, inode);
      }
    }
  }

  /**
   * Power is lost at the start of the call for which {@code trigger} (given the operation and the
   * file) says true: that call and every later
   * one fail.
   */
  public synchronized void losePowerAt(BiPredicate<VfsOp, Path> trigger) {
    this.trigger = trigger;
  }

  /**
   * Loses power now, unless it was lost already, and returns the directory holding what
   * survived, to open a fresh engine on.
   */
  public synchronized Path powerLoss() throws IOException {
    if (lostAt == null) die("the test");
    return survivors;
  }

  /**
   * Calls {@code listener} with the file each time a file's appended bytes become durable, at
   * that instant (under the filesystem's lock): a test learns which writes a sync covered.
   */
  public synchronized void onSync(Consumer<Path> listener) {
    this.onSync = listener;
  }

  /** Calls {@code listener} with the file after each append to it, under the lock. */
  public synchronized void onAppend(Consumer<Path> listener) {
    this.onAppend = listener;
  }

  /** Whether the power was lost, and where: the operation and file (or "the test"). */
  public synchronized @Nullable String lostAt() {
    return lostAt;
  }

  /** How many calls of {@code op} this filesystem saw. */
  public synchronized long calls(VfsOp op) {
    return calls.getOrDefault(op, 0L);
  }

  // Every operation starts here, under the lock.
  private void enter(VfsOp op, Path file) throws IOException {
    if (lostAt != null) throw new IOException(file + ": power lost (at " + lostAt + ")");
    calls.merge(op, 1L, Long::sum);
    if (trigger.test(op, file)) {
      die(op + " of " + file.getFileName());
      throw new IOException(file + ": power lost (at " + lostAt + ")");
    }
  }

  private void die(String where) throws IOException {
    lostAt = where;
    Files.createDirectory(survivors);
    for (Map.Entry<Path, Inode> entry : durable.entrySet()) {
      Path target = survivors.resolve(root.relativize(entry.getKey()).toString());
      Files.createDirectories(target.getParent());
      Files.write(target, syncedContent(entry.getValue()));
    }
  }

  // Here, not in the handle's class: the exemption from the forbidden-calls check is this class's.
  private static long sizeOnDisk(Path file) throws IOException {
    return Files.size(file);
  }

  private byte[] syncedContent(Inode inode) throws IOException {
    Path livePath = inode.livePath;
    if (livePath == null) return Objects.requireNonNull(inode.contentAfterDelete, "a deleted file keeps its synced bytes");
    byte[] all = Files.readAllBytes(livePath);
    return Arrays.copyOf(all, Math.toIntExact(inode.syncedLength));
  }

  private Path checked(Path file) {
    Path absolute = file.toAbsolutePath().normalize();
    if (!absolute.startsWith(root)) {
      throw new IllegalArgumentException(file + " is outside this filesystem's root " + root);
    }
    return absolute;
  }

  // Every forwarded call, and every call of a handle, takes the lock and checks the power.
  @Override
  protected synchronized <T> T around(VfsOp op, Path file, IoCall<T> call) throws IOException {
    enter(op, checked(file));
    return call.call();
  }

  @Override
  public synchronized WritableFile create(Path file) throws IOException {
    Path path = checked(file);
    enter(VfsOp.CREATE, path);
    if (live.containsKey(path)) throw new FileAlreadyExistsException(path.toString());
    WritableFile real = delegate.create(path);
    Inode inode = new Inode(path, 0, 0);
    live.put(path, inode);
    return new ForwardingWritableFile(path, real) {
      @Override
      public int append(ByteBuffer source) throws IOException {
        return around(VfsOp.APPEND, path, () -> {
          Path livePath = inode.livePath;
          if (livePath == null) {
            throw new IllegalStateException("append to " + path + " after it was deleted");
          }
          long onDisk = sizeOnDisk(livePath);
          if (onDisk != inode.length) {
            throw new IllegalStateException(livePath + " holds " + onDisk
                + " bytes where " + inode.length + " were appended: written behind the filesystem");
          }
          int written = real.append(source);
          inode.length += written;
          onAppend.accept(path);
          return written;
        });
      }

      @Override
      public void truncate(long sizeBytes) throws IOException {
        around(VfsOp.TRUNCATE, path, () -> {
          if (sizeBytes < inode.syncedLength) {
            throw new IllegalStateException("truncating " + path + " to " + sizeBytes
                + " bytes, below the " + inode.syncedLength + " synced: durable bytes changed");
          }
          real.truncate(sizeBytes);
          inode.length = Math.min(inode.length, sizeBytes);
        });
      }

      // No real fsync: durability is what this class models, and tests run faster without it.
      @Override
      public void sync(boolean metadata) throws IOException {
        around(VfsOp.SYNC, path, () -> {
          inode.syncedLength = inode.length;
          onSync.accept(path);
        });
      }
    };
  }

  @Override
  public synchronized void rename(Path source, Path target) throws IOException {
    Path from = checked(source);
    Path to = checked(target);
    enter(VfsOp.RENAME, from);
    Inode moved = live.get(from);
    if (moved == null && Files.isDirectory(from)) {
      renameDirectory(from, to);
      return;
    }
    if (moved == null) throw new NoSuchFileException(from.toString());
    unlink(to);
    delegate.rename(from, to);
    live.remove(from);
    moved.livePath = to;
    live.put(to, moved);
  }

  @Override
  public synchronized boolean delete(Path file) throws IOException {
    Path path = checked(file);
    enter(VfsOp.DELETE, path);
    if (!live.containsKey(path)) return delegate.delete(path); // a directory, or nothing
    unlink(path);
    return true;
  }

  // A directory (a checkpoint built under a temporary name) moves with its files. Directories
  // are durable once created, in this model, and so is a directory's new name: the names of its
  // files move, live and durable alike.
  private void renameDirectory(Path from, Path to) throws IOException {
    delegate.rename(from, to);
    for (Map<Path, Inode> names : List.of(live, durable)) {
      for (Path name : List.copyOf(names.keySet())) {
        if (!name.startsWith(from)) continue;
        Path renamed = to.resolve(from.relativize(name).toString());
        Inode inode = Objects.requireNonNull(names.remove(name));
        if (inode.livePath != null && inode.livePath.equals(name)) inode.livePath = renamed;
        names.put(renamed, inode);
      }
    }
  }

  // Removes the live name; the content stays reachable while a durable name still points to it.
  private void unlink(Path path) throws IOException {
    Inode inode = live.get(path);
    if (inode == null) return;
    if (durable.containsValue(inode)) inode.contentAfterDelete = syncedContent(inode);
    delegate.delete(path);
    live.remove(path);
    inode.livePath = null;
  }


  @Override
  public synchronized @Nullable Closeable tryLock(Path file) throws IOException {
    Path path = checked(file);
    enter(VfsOp.LOCK, path);
    Closeable lock = delegate.tryLock(path);
    // The lock file is a name like any other: durable once its directory is synced.
    if (lock != null) live.putIfAbsent(path, new Inode(path, 0, 0));
    return lock;
  }

  @Override
  public synchronized void syncDirectory(Path directory) throws IOException {
    Path path = checked(directory);
    enter(VfsOp.SYNC_DIRECTORY, path);
    durable.keySet().removeIf(name -> path.equals(name.getParent()));
    live.forEach((name, inode) -> {
      if (path.equals(name.getParent())) durable.put(name, inode);
    });
  }


  // Forced as it returns (Vfs#truncate), so durable at once: the cut bytes never come back.
  @Override
  public synchronized void truncate(Path file, long sizeBytes) throws IOException {
    Path path = checked(file);
    enter(VfsOp.TRUNCATE, path);
    Inode inode = live.get(path);
    if (inode == null) throw new NoSuchFileException(path.toString());
    delegate.truncate(path, sizeBytes);
    inode.length = Math.min(inode.length, sizeBytes);
    inode.syncedLength = Math.min(inode.syncedLength, sizeBytes);
  }

  @Override
  public synchronized boolean exists(Path file) {
    return delegate.exists(checked(file));
  }



  /** The durable names under the root, for a test's diagnostics. */
  @Override
  public synchronized String toString() {
    StringBuilder out = new StringBuilder("CrashVfs(" + root + ", durable:");
    durable.forEach((name, inode) -> out.append(' ').append(root.relativize(name))
        .append('=').append(inode.syncedLength));
    return out.append(')').toString();
  }
}
