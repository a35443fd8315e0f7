package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/** How the handoff's files and frames name a set of nodes: ids sorted and joined with commas. */
public final class NodeIds {
  private NodeIds() {}

  public static String join(Collection<NodeAddress> nodes) {
    return nodes.stream().map(NodeAddress::id).sorted().collect(Collectors.joining(","));
  }

  /**
   * The nodes {@link #join} named, in its order.
   *
   * @throws IllegalArgumentException naming an id that is not {@code host:port}
   */
  public static List<NodeAddress> parse(String ids) {
    return Arrays.stream(ids.split(",", -1)).map(NodeAddress::ofId).toList();
  }
}
