package dev.shale.cluster.repair;

import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import java.util.BitSet;
import org.jspecify.annotations.Nullable;

/**
 * One replica of a pair as a repair sees it: this node's engine, or a peer over the internode
 * protocol. Every call blocks the repair's thread (never an event loop) until done, and throws
 * {@link RepairFailedException} with a one-line reason when the replica cannot answer.
 */
public interface RepairSide {
  NodeAddress node();

  /** Whether the calls cross the network: what a repair moves to and from it counts as exchanged bytes. */
  boolean isRemote();

  /** The replica's tree of {@code range} with {@code 2^leafBits} leaves. */
  RepairTree tree(SharedRange range, int leafBits);

  /** The hashes of the {@code 2^subBits} sub-leaves of each of {@code leaves} in the replica's tree of {@code range}. */
  SubLeaves subLeaves(SharedRange range, int leafBits, int subBits, BitSet leaves);

  /**
   * The replica's records of {@code range} that {@code selection} selects, in key order,
   * tombstones included, each without its value (a digest: key, version, tombstone or not). The
   * caller closes it.
   */
  EntryIterator digests(SharedRange range, LeafSelection selection);

  /** The replica's winning record of {@code key}, value included; null if it has none. */
  @Nullable Entry read(byte[] key);

  /** Stores {@code record} with its own version; an older record than the replica's loses, by the version rules. */
  void write(Entry record);
}
