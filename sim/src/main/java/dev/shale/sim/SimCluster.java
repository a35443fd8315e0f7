package dev.shale.sim;

import dev.shale.cluster.NodeAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The nodes of one run and what they share: the virtual time, the network, the trace, the history. */
final class SimCluster {
  private final VirtualTime time;
  private final Trace trace;
  private final SimNetwork network;
  private final History history;
  private final List<SimNode> nodes = new ArrayList<>();
  private final List<NodeAddress> addresses = new ArrayList<>();
  private final Map<NodeAddress, SimNode> byAddress = new HashMap<>();

  SimCluster(VirtualTime time, Trace trace, SimNetwork network, History history) {
    this.time = time;
    this.trace = trace;
    this.network = network;
    this.history = history;
  }

  void add(SimNode node) {
    nodes.add(node);
    addresses.add(node.address());
    byAddress.put(node.address(), node);
  }

  VirtualTime time() {
    return time;
  }

  Trace trace() {
    return trace;
  }

  SimNetwork network() {
    return network;
  }

  History history() {
    return history;
  }

  List<SimNode> nodes() {
    return nodes;
  }

  List<NodeAddress> addresses() {
    return List.copyOf(addresses);
  }

  SimNode node(NodeAddress address) {
    SimNode node = byAddress.get(address);
    if (node == null) throw new IllegalArgumentException("no node " + address);
    return node;
  }
}
