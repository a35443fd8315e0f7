package dev.shale.cluster;

import java.util.ArrayList;
import java.util.List;

/** Node lists for tests: {@code http://127.0.0.1:<8080 + i>}. */
public final class Nodes {
  private Nodes() {}

  public static List<NodeAddress> loopback(int count) {
    List<NodeAddress> nodes = new ArrayList<>();
    for (int i = 0; i < count; i++) nodes.add(new NodeAddress("127.0.0.1", 8080 + i));
    return nodes;
  }

  public static Placement placement(List<NodeAddress> nodes) {
    return new Placement(new Topology(nodes, nodes.getFirst()));
  }
}
