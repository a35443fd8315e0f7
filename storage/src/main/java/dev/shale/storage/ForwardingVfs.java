package dev.shale.storage;

import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The base of the test filesystems: a {@link Vfs} that passes every call, and every call on the
 * files it hands out, to another one, each through {@link #around}, which a subclass overrides
 * to see the call first (count it, fail it, take a lock). A subclass overrides a method itself
 * only where it changes what the call does. {@link Vfs#exists}, {@link Vfs#isDirectory} and the files' {@code close}
 * throw nothing a test filesystem could inject, so they skip the hook.
 */
abstract class ForwardingVfs implements Vfs {
  /** A call of the delegate, which may throw as a file operation does. */
  @FunctionalInterface
  protected interface IoCall<T> {
    T call() throws IOException;
  }

  /** As {@link IoCall}, for the operations that return nothing. */
  @FunctionalInterface
  protected interface IoRun {
    void run() throws IOException;
  }

  protected final Vfs delegate;

  protected ForwardingVfs(Vfs delegate) {
    this.delegate = delegate;
  }

  /** Runs {@code call}, the operation {@code op} on {@code file}; by default just runs it. */
  protected <T> T around(VfsOp op, Path file, IoCall<T> call) throws IOException {
    return call.call();
  }

  /** As the other {@code around}, for an operation that returns nothing. */
  protected final void around(VfsOp op, Path file, IoRun run) throws IOException {
    around(op, file, () -> {
      run.run();
      return Boolean.TRUE; // nothing, to a call that must return something
    });
  }

  /** The handle {@link #create} returns for {@code created}, the delegate's. */
  protected WritableFile writable(Path file, WritableFile created) {
    return new ForwardingWritableFile(file, created);
  }

  @Override
  public WritableFile create(Path file) throws IOException {
    return writable(file, around(VfsOp.CREATE, file, () -> delegate.create(file)));
  }

  @Override
  public ReadableFile open(Path file) throws IOException {
    return new ForwardingReadableFile(file, around(VfsOp.OPEN, file, () -> delegate.open(file)));
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    around(VfsOp.RENAME, source, () -> delegate.rename(source, target));
  }

  @Override
  public void link(Path existing, Path link) throws IOException {
    delegate.link(existing, link);
  }

  @Override
  public boolean delete(Path file) throws IOException {
    return around(VfsOp.DELETE, file, () -> delegate.delete(file));
  }

  @Override
  public List<Path> list(Path directory) throws IOException {
    return around(VfsOp.LIST, directory, () -> delegate.list(directory));
  }

  @Override
  public @Nullable Closeable tryLock(Path file) throws IOException {
    @Nullable Closeable[] lock = {null}; // null: held elsewhere, which around's call may not return
    around(VfsOp.LOCK, file, () -> {
      lock[0] = delegate.tryLock(file);
    });
    return lock[0];
  }

  @Override
  public void syncDirectory(Path directory) throws IOException {
    around(VfsOp.SYNC_DIRECTORY, directory, () -> delegate.syncDirectory(directory));
  }

  @Override
  public long size(Path file) throws IOException {
    return around(VfsOp.SIZE, file, () -> delegate.size(file));
  }

  @Override
  public boolean exists(Path file) {
    return delegate.exists(file);
  }

  @Override
  public boolean isDirectory(Path path) {
    return delegate.isDirectory(path);
  }

  @Override
  public void createDirectories(Path directory) throws IOException {
    around(VfsOp.CREATE_DIRECTORIES, directory, () -> delegate.createDirectories(directory));
  }

  @Override
  public void truncate(Path file, long sizeBytes) throws IOException {
    around(VfsOp.TRUNCATE, file, () -> delegate.truncate(file, sizeBytes));
  }

  @Override
  public long usableSpace(Path directory) throws IOException {
    return around(VfsOp.USABLE_SPACE, directory, () -> delegate.usableSpace(directory));
  }

  /** A file being written, its calls through {@link #around}. */
  protected class ForwardingWritableFile implements WritableFile {
    protected final Path file;
    protected final WritableFile created;

    protected ForwardingWritableFile(Path file, WritableFile created) {
      this.file = file;
      this.created = created;
    }

    @Override
    public int append(ByteBuffer source) throws IOException {
      return around(VfsOp.APPEND, file, () -> created.append(source));
    }

    @Override
    public void sync(boolean metadata) throws IOException {
      around(VfsOp.SYNC, file, () -> created.sync(metadata));
    }

    @Override
    public void truncate(long sizeBytes) throws IOException {
      around(VfsOp.TRUNCATE, file, () -> created.truncate(sizeBytes));
    }

    @Override
    public void close() throws IOException {
      created.close();
    }
  }

  /** A file open for reading, its calls through {@link #around}. */
  private final class ForwardingReadableFile implements ReadableFile {
    private final Path file;
    private final ReadableFile opened;

    ForwardingReadableFile(Path file, ReadableFile opened) {
      this.file = file;
      this.opened = opened;
    }

    @Override
    public long size() throws IOException {
      return around(VfsOp.SIZE, file, opened::size);
    }

    @Override
    public void readFully(MemorySegment target, long position) throws IOException {
      around(VfsOp.READ, file, () -> opened.readFully(target, position));
    }

    @Override
    public void adviseRandom() {
      opened.adviseRandom();
    }

    @Override
    public void prefetch(long position, long length) {
      opened.prefetch(position, length);
    }

    @Override
    public MemorySegment map(Arena arena) throws IOException {
      return around(VfsOp.MAP, file, () -> opened.map(arena));
    }

    @Override
    public void close() throws IOException {
      opened.close();
    }
  }
}
