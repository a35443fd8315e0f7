package dev.shale.testkit.netns;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A /24 of the private test range {@code 10.213.0.0/16} that no other run on this machine uses:
 * held by a lock file (released by {@link #close} or, if the JVM dies, by the kernel) and not
 * assigned to any interface. So runs in parallel (other JVMs, other worktrees) never share
 * addresses, and a killed run's range is free once its leftovers are cleaned.
 */
final class SubnetLease implements AutoCloseable {
  private static final String PREFIX = "10.213.";

  private final int third;
  private final FileChannel channel;
  private final FileLock lock;

  private SubnetLease(int third, FileChannel channel, FileLock lock) {
    this.third = third;
    this.channel = channel;
    this.lock = lock;
  }

  /** Takes the first free range; fails if all 256 are taken. */
  static SubnetLease take() throws IOException {
    Path dir = Files.isDirectory(Path.of("/run/lock")) ? Path.of("/run/lock") : Path.of(System.getProperty("java.io.tmpdir"));
    String assigned = HostCommand.run("ip", "-o", "-4", "addr", "show");
    for (int third = 0; third < 256; third++) {
      FileChannel channel = FileChannel.open(dir.resolve("shale-netns-" + PREFIX + third + ".lock"),
          StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock != null && !assigned.contains(" " + PREFIX + third + ".")) return new SubnetLease(third, channel, lock);
      if (lock != null) lock.release();
      channel.close();
    }
    throw new IOException("every range " + PREFIX + "0-255.0/24 is in use or locked in " + dir);
  }

  /** The address {@code host} (1 to 254) of this range. */
  String address(int host) {
    return PREFIX + third + "." + host;
  }

  @Override
  public void close() throws IOException {
    lock.release();
    channel.close();
  }
}
