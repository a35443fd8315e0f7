package dev.shale.server.repair;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.repair.LeafSelection;
import dev.shale.cluster.repair.RangeRecords;
import dev.shale.cluster.repair.RepairSide;
import dev.shale.cluster.repair.RepairTree;
import dev.shale.cluster.repair.SharedRange;
import dev.shale.cluster.repair.SubLeaves;
import dev.shale.server.EntityService;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import java.util.BitSet;
import org.jspecify.annotations.Nullable;

/** This node as one side of a repair: its tree and digests from a scan of its engine, on the repair's thread. */
final class LocalRepairSide implements RepairSide {
  private static final byte[] FIRST_KEY = new byte[0];

  private final NodeAddress self;
  private final EntityService service;
  private final ReplicaRecords records;

  LocalRepairSide(NodeAddress self, EntityService service, ReplicaRecords records) {
    this.self = self;
    this.service = service;
    this.records = records;
  }

  @Override
  public NodeAddress node() {
    return self;
  }

  @Override
  public boolean isRemote() {
    return false;
  }

  @Override
  public RepairTree tree(SharedRange range, int leafBits) {
    return new RangeRecords(service.scan(FIRST_KEY, null, true), range, leafBits, null).tree();
  }

  @Override
  public SubLeaves subLeaves(SharedRange range, int leafBits, int subBits, BitSet leaves) {
    return new RangeRecords(service.scan(FIRST_KEY, null, true), range, leafBits, leaves).subLeaves(subBits);
  }

  @Override
  public EntryIterator digests(SharedRange range, LeafSelection selection) {
    return RangeRecords.digests(service.scan(FIRST_KEY, null, true), range, selection);
  }

  @Override
  public @Nullable Entry read(byte[] key) {
    return records.read(self, key);
  }

  @Override
  public void write(Entry record) {
    records.write(self, record);
  }
}
