package dev.shale.storage.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file channel that fails writes or forces on demand, for tests of what the engine does when
 * the disk fails it. Counts forces.
 */
public final class FaultyChannel extends FileChannel {
  /** Switches shared by every channel a test's opener makes. */
  public static final class Faults {
    public final AtomicBoolean failWrites = new AtomicBoolean();
    public final AtomicBoolean failForces = new AtomicBoolean();
    public final AtomicInteger forces = new AtomicInteger();

    /** An opener whose channels obey these switches. */
    public ChannelOpener opener() {
      return file -> new FaultyChannel(ChannelOpener.DEFAULT.createNew(file), this);
    }
  }

  private final FileChannel delegate;
  private final Faults faults;

  FaultyChannel(FileChannel delegate, Faults faults) {
    this.delegate = delegate;
    this.faults = faults;
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    if (faults.failWrites.get()) {
      // A torn write: half the bytes reach the file, then the device fails.
      ByteBuffer half = src.slice(src.position(), src.remaining() / 2);
      delegate.write(half);
      throw new IOException("injected write failure");
    }
    return delegate.write(src);
  }

  @Override
  public void force(boolean metaData) throws IOException {
    faults.forces.incrementAndGet();
    if (faults.failForces.get()) throw new IOException("injected fsync failure");
    delegate.force(metaData);
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    return delegate.read(dst);
  }

  @Override
  public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
    return delegate.read(dsts, offset, length);
  }

  @Override
  public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
    if (faults.failWrites.get()) throw new IOException("injected write failure");
    return delegate.write(srcs, offset, length);
  }

  @Override
  public long position() throws IOException {
    return delegate.position();
  }

  @Override
  public FileChannel position(long newPosition) throws IOException {
    delegate.position(newPosition);
    return this;
  }

  @Override
  public long size() throws IOException {
    return delegate.size();
  }

  @Override
  public FileChannel truncate(long size) throws IOException {
    delegate.truncate(size);
    return this;
  }

  @Override
  public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
    return delegate.transferTo(position, count, target);
  }

  @Override
  public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
    return delegate.transferFrom(src, position, count);
  }

  @Override
  public int read(ByteBuffer dst, long position) throws IOException {
    return delegate.read(dst, position);
  }

  @Override
  public int write(ByteBuffer src, long position) throws IOException {
    if (faults.failWrites.get()) throw new IOException("injected write failure");
    return delegate.write(src, position);
  }

  @Override
  public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
    return delegate.map(mode, position, size);
  }

  @Override
  public FileLock lock(long position, long size, boolean shared) throws IOException {
    return delegate.lock(position, size, shared);
  }

  @Override
  public FileLock tryLock(long position, long size, boolean shared) throws IOException {
    return delegate.tryLock(position, size, shared);
  }

  @Override
  protected void implCloseChannel() throws IOException {
    delegate.close();
  }
}
