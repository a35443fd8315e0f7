package dev.shale.app.membership;

import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.ClusterMapCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * {@code <data>/raft/map}: the last cluster map this node applied, in the snapshot's text form
 * (docs/format.md, "Cluster map"). A restarted node starts serving with it at once, without
 * waiting for a Raft leader to tell it what the log holds (after a whole-cluster stop, no node
 * would have a majority to wait for); Raft then brings it up to date.
 *
 * <p>Written whole to a temporary file, fsynced, and renamed into place: the file holds a
 * whole map, old or new, after any crash.
 */
final class MapFile {
  static final String NAME = "map";

  private final Path file;

  MapFile(Path raftDir) {
    this.file = raftDir.resolve(NAME);
  }

  Optional<ClusterMap> read() {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the cluster map " + file + ": " + e.getMessage(), e);
    }
    try {
      return Optional.of(ClusterMapCodec.decode(bytes));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("the cluster map " + file + " is damaged (" + e.getMessage()
          + "); delete it and the node takes the map from the other members", e);
    }
  }

  void write(ClusterMap map) {
    try {
      writeWhole(file, ClusterMapCodec.encode(map));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the cluster map " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes {@code bytes} to {@code <target>.partial}, fsyncs it, renames it over {@code target}
   * and fsyncs the directory: after a crash, {@code target} is the old file or the new one, whole.
   */
  static void writeWhole(Path target, byte[] bytes) throws IOException {
    Path partial = target.resolveSibling(target.getFileName() + ".partial");
    try (FileChannel channel = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) channel.write(buffer);
      channel.force(true);
    }
    Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel directory = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
      directory.force(true);
    }
  }
}
