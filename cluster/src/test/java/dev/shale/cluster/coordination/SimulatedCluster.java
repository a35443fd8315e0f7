package dev.shale.cluster.coordination;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.storage.HybridClock;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Nodes on a {@link SimulatedNetwork}, each able to coordinate: its own loop, its own hybrid clock
 * (on the virtual wall clock plus a skew of its own), and its missed writes recorded. Each request
 * gets a coordinator of its own over an {@link ObservedRequest}, which is equivalent to sharing
 * one: a coordinator keeps every request's state in the request.
 */
final class SimulatedCluster {
  /** A missed write handed to a node's {@link MissedWrites}. */
  record Hint(NodeAddress coordinator, NodeAddress target, String key, long version) {}

  /** Virtual time starts at a plausible wall clock, so versions look like real ones. */
  private static final long EPOCH_MILLIS = 1_750_000_000_000L;

  final VirtualTime time = new VirtualTime();
  final List<NodeAddress> nodes = new ArrayList<>();
  final SimulatedNetwork network;
  final List<Hint> hints = new ArrayList<>();
  private final Map<NodeAddress, Node> byAddress = new HashMap<>();
  private int requests;
  /** The coordinators' read speculation ({@link Coordinator}); 0: a read asks every replica at once. */
  long readSpeculationMillis = Cluster.DEFAULT_READ_SPECULATION_MILLIS;

  private final class Node {
    final NodeAddress address;
    final Placement placement;
    final VirtualTime.Loop loop;
    final HybridClock clock;
    final MissedWrites missed;
    final ReplicationStats stats;

    Node(NodeAddress address, long skewMillis) {
      this.address = address;
      this.placement = new Placement(new Topology(nodes, address));
      this.loop = time.newLoop(address.id());
      this.clock = new HybridClock(() -> EPOCH_MILLIS + time.nowMillis() + skewMillis);
      this.missed = (target, key, value, version, expiresAtMillis) -> hints.add(new Hint(address, target, new String(key, StandardCharsets.UTF_8), version));
      this.stats = new ReplicationStats(missed);
    }
  }

  /** {@code size} nodes; their clocks skewed by up to {@code maxSkewMillis} either way. */
  SimulatedCluster(int size, Random random, SimulatedNetwork.Faults faults, long maxSkewMillis) {
    for (int i = 0; i < size; i++) nodes.add(new NodeAddress("127.0.0.1", 8080 + i));
    network = new SimulatedNetwork(time, random, nodes, faults);
    for (NodeAddress address : nodes) {
      long skew = maxSkewMillis == 0 ? 0 : random.nextLong(-maxSkewMillis, maxSkewMillis + 1);
      byAddress.put(address, new Node(address, skew));
    }
  }

  /** The replicas {@code key} is read from and written to, for {@code from} of them. */
  List<NodeAddress> replicasOf(String key, int from) {
    return byAddress.get(nodes.getFirst()).placement.preferenceList(key.getBytes(StandardCharsets.UTF_8), from);
  }

  ReplicationStats stats(NodeAddress node) {
    return byAddress.get(node).stats;
  }

  /**
   * Starts a write through {@code coordinator} on its loop now; {@code onDone} and {@code onAllIn}
   * run after the request's own checks, on its loop. Returns the request, to look at later.
   */
  ObservedRequest write(NodeAddress coordinator, String key, byte @Nullable [] value, Consistency consistency,
      Consumer<ObservedRequest> onDone, Consumer<ObservedRequest> onAllIn) {
    Node node = byAddress.get(coordinator);
    ObservedRequest request = observe("write", key, node, consistency);
    coordinatorOf(node, request).write(node.loop, key.getBytes(StandardCharsets.UTF_8), value, consistency, request.done(onDone), request.allIn(onAllIn));
    request.started();
    return request;
  }

  /** Like {@link #write}, for a read. */
  ObservedRequest read(NodeAddress coordinator, String key, Consistency consistency, Consumer<ObservedRequest> onDone,
      Consumer<ObservedRequest> onAllIn) {
    Node node = byAddress.get(coordinator);
    ObservedRequest request = observe("read", key, node, consistency);
    coordinatorOf(node, request).read(node.loop, key.getBytes(StandardCharsets.UTF_8), consistency, request.done(onDone), request.newerLate(),
        request.allIn(onAllIn));
    request.started();
    return request;
  }

  /** Runs {@code work} on {@code node}'s loop, {@code delayMillis} from now. */
  void on(NodeAddress node, long delayMillis, Runnable work) {
    time.after(delayMillis, () -> byAddress.get(node).loop.execute(work));
  }

  private ObservedRequest observe(String what, String key, Node node, Consistency consistency) {
    if (!node.loop.isCurrent()) throw new IllegalStateException("start a request on its coordinator's loop");
    String name = "request " + requests++ + " (" + what + " " + key + " " + consistency + " through " + node.address.id() + " at "
        + time.nowMillis() + " ms)";
    return new ObservedRequest(name, key, network.from(node.address), time, node.loop, consistency);
  }

  private Coordinator coordinatorOf(Node node, ObservedRequest request) {
    return new Coordinator(new ReplicaSets(node.placement), request, node.clock, node.missed, node.stats, readSpeculationMillis);
  }
}
