package dev.shale.cluster.repair;

import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Keys;
import java.util.BitSet;
import java.util.Iterator;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** A replica for repair tests: its store a sorted map of winning records, tombstones included. */
final class MapSide implements RepairSide {
  final NavigableMap<byte[], Entry> records = new TreeMap<>(Keys::compare);
  private final NodeAddress node;
  private final boolean remote;
  int reads; // records read whole from this side
  int digestsSent; // digests this side gave

  MapSide(NodeAddress node) {
    this(node, true);
  }

  /** @param remote whether it counts as a peer (what crosses the network to and from it counts as exchanged) */
  MapSide(NodeAddress node, boolean remote) {
    this.node = node;
    this.remote = remote;
  }

  /** Stores {@code record} if it is newer than the one held, as an engine would. */
  void put(Entry record) {
    records.merge(record.key(), record, Entry::newer);
  }

  @Override
  public NodeAddress node() {
    return node;
  }

  @Override
  public boolean isRemote() {
    return remote;
  }

  @Override
  public RepairTree tree(SharedRange range, int leafBits) {
    return new RangeRecords(scan(), range, leafBits, null).tree();
  }

  @Override
  public SubLeaves subLeaves(SharedRange range, int leafBits, int subBits, BitSet leaves) {
    return new RangeRecords(scan(), range, leafBits, leaves).subLeaves(subBits);
  }

  @Override
  public EntryIterator digests(SharedRange range, LeafSelection selection) {
    digestsSent += countOf(RangeRecords.digests(scan(), range, selection));
    return RangeRecords.digests(scan(), range, selection);
  }

  private static int countOf(EntryIterator records) {
    int count = 0;
    try (records) {
      for (; records.hasNext(); records.next()) count++;
    }
    return count;
  }

  @Override
  public @Nullable Entry read(byte[] key) {
    reads++;
    return records.get(key);
  }

  @Override
  public void write(Entry record) {
    put(record);
  }

  private EntryIterator scan() {
    Iterator<Entry> all = new TreeMap<>(records).values().iterator();
    return new EntryIterator() {
      @Override
      public boolean hasNext() {
        return all.hasNext();
      }

      @Override
      public Entry next() {
        return all.next();
      }

      @Override
      public void close() {}
    };
  }
}
