package dev.shale.app.membership;

import dev.shale.cluster.WholeFile;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.ClusterMapCodec;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
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

  private final Vfs vfs;
  private final Path file;

  MapFile(Vfs vfs, Path raftDir) {
    this.vfs = vfs;
    this.file = raftDir.resolve(NAME);
  }

  /** The filesystem the map is kept through: the Raft snapshots are kept through the same. */
  Vfs vfs() {
    return vfs;
  }

  Optional<ClusterMap> read() {
    Optional<byte[]> bytes = WholeFile.readIfPresent(vfs, file, "the cluster map");
    if (bytes.isEmpty()) return Optional.empty();
    try {
      return Optional.of(ClusterMapCodec.decode(bytes.get()));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("the cluster map " + file + " is damaged (" + e.getMessage()
          + "); delete it and the node takes the map from the other members", e);
    }
  }

  void write(ClusterMap map) {
    try {
      WholeFile.write(vfs, file, ClusterMapCodec.encode(map));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the cluster map " + file + ": " + e.getMessage(), e);
    }
  }
}
