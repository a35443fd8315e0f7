package dev.shale.server.repair;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.repair.RepairSide;
import dev.shale.server.EntityService;
import dev.shale.server.coordination.ReplicaCalls;
import dev.shale.server.peer.PeerDialer;
import dev.shale.storage.Env;
import io.netty.channel.EventLoopGroup;
import java.util.function.Function;

/** A node's side of a repair, as this node reaches it: its own engine, or a peer over the internode protocol. */
final class RepairSides implements Function<NodeAddress, RepairSide> {
  private final NodeAddress self;
  private final EntityService service;
  private final PeerDialer dialer;
  private final EventLoopGroup loops;
  private final ReplicaRecords records;
  private final long timeoutMillis;
  private final Env env; // the node's: the repair's timed waits run out on its clock

  /** @param timeoutMillis --replica-timeout: a connect, or a read or write of one record, may take this long */
  RepairSides(NodeAddress self, EntityService service, ReplicaCalls calls, PeerDialer dialer, EventLoopGroup loops, long timeoutMillis,
      Env env) {
    this.env = env;
    this.self = self;
    this.service = service;
    this.dialer = dialer;
    this.loops = loops;
    this.records = new ReplicaRecords(calls, loops::next, timeoutMillis, env);
    this.timeoutMillis = timeoutMillis;
  }

  @Override
  public RepairSide apply(NodeAddress node) {
    if (node.equals(self)) return new LocalRepairSide(self, service, records);
    return new PeerRepairSide(node, dialer, loops::next, records, timeoutMillis, env);
  }
}
