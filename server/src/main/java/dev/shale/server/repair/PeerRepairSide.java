package dev.shale.server.repair;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.repair.LeafSelection;
import dev.shale.cluster.repair.LeafSet;
import dev.shale.cluster.repair.RepairFailedException;
import dev.shale.cluster.repair.RepairSide;
import dev.shale.cluster.repair.RepairTree;
import dev.shale.cluster.repair.SharedRange;
import dev.shale.cluster.repair.SubLeaves;
import dev.shale.server.Reasons;
import dev.shale.server.peer.PeerDialer;
import dev.shale.server.peer.PeerMessage;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Env;
import io.netty.channel.EventLoop;
import java.util.BitSet;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A peer as one side of a repair: its tree and sub-leaves (TREE, answered by LEAVES frames) and
 * digests (DIGESTS, answered by a scan stream without values) each on a connection of its own
 * (docs/format.md, "Repair requests"), its whole records by READ and WRITE.
 */
final class PeerRepairSide implements RepairSide {
  /**
   * How long a peer may take to build a tree (one pass over its store) or to send the next piece
   * of its digests, which also waits for a pass to reach the next selected record.
   */
  static final long ANSWER_TIMEOUT_MILLIS = 300_000;

  private final NodeAddress peer;
  private final PeerDialer dialer;
  private final Supplier<EventLoop> loops;
  private final ReplicaRecords records;
  private final long connectTimeoutMillis;
  private final Env env;

  PeerRepairSide(
      NodeAddress peer, PeerDialer dialer, Supplier<EventLoop> loops, ReplicaRecords records, long connectTimeoutMillis, Env env) {
    this.env = env;
    this.peer = peer;
    this.dialer = dialer;
    this.loops = loops;
    this.records = records;
    this.connectTimeoutMillis = connectTimeoutMillis;
  }

  @Override
  public NodeAddress node() {
    return peer;
  }

  @Override
  public boolean isRemote() {
    return true;
  }

  @Override
  public RepairTree tree(SharedRange range, int leafBits) {
    PeerMessage.Tree request = new PeerMessage.Tree(RepairConnection.REQUEST_ID, range.replicas(), leafBits, range.other(peer).id(), 0, new byte[0]);
    return RepairTree.ofLeaves(leafBits, hashes(request, 1 << leafBits));
  }

  @Override
  public SubLeaves subLeaves(SharedRange range, int leafBits, int subBits, BitSet leaves) {
    PeerMessage.Tree request = new PeerMessage.Tree(
        RepairConnection.REQUEST_ID, range.replicas(), leafBits, range.other(peer).id(), subBits, LeafSet.encode(leaves, leafBits));
    return SubLeaves.ofHashes(leafBits, subBits, leaves, hashes(request, SubLeaves.hashCount(subBits, leaves)));
  }

  /** Sends a TREE and reads the {@code count} hashes of its LEAVES frames. */
  private long[] hashes(PeerMessage.Tree request, int count) {
    long[] hashes = new long[count];
    try (RepairConnection connection = RepairConnection.send(dialer, loops.get(), peer, request, connectTimeoutMillis, env)) {
      for (int received = 0; received < hashes.length; ) {
        PeerMessage.Answer answer = connection.next(ANSWER_TIMEOUT_MILLIS);
        if (!(answer instanceof PeerMessage.Leaves part)) throw unexpected(answer, "a tree");
        if (part.first() != received || part.hashes().length == 0 || received + part.hashes().length > hashes.length) {
          throw new RepairFailedException(peer + " sent leaves from " + part.first() + " (" + part.hashes().length
              + " of them) after " + received + " of " + hashes.length);
        }
        System.arraycopy(part.hashes(), 0, hashes, received, part.hashes().length);
        received += part.hashes().length;
      }
    }
    return hashes;
  }

  @Override
  public EntryIterator digests(SharedRange range, LeafSelection selection) {
    PeerMessage.Digests request = new PeerMessage.Digests(RepairConnection.REQUEST_ID, range.replicas(), selection.leafBits(),
        range.other(peer).id(), selection.leafBitmap(), selection.subBits(), selection.masks());
    return new PeerDigests(peer, RepairConnection.send(dialer, loops.get(), peer, request, connectTimeoutMillis, env));
  }

  @Override
  public @Nullable Entry read(byte[] key) {
    return records.read(peer, key);
  }

  @Override
  public void write(Entry record) {
    records.write(peer, record);
  }

  /** The failure of an answer that is not the one asked for: FAILED, or another frame. */
  static RepairFailedException unexpected(PeerMessage.Answer answer, String what) {
    if (answer instanceof PeerMessage.Failed failed) {
      return new RepairFailedException(Reasons.oneLine(failed.reason()) + " (code " + failed.code() + ")");
    }
    if (answer instanceof PeerMessage.ScanData data) data.data().release();
    return new RepairFailedException("answered " + what + " with a frame of type 0x" + Integer.toHexString(answer.type()));
  }
}
