package dev.shale.cluster;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The nodes of a static cluster and which of them is this one.
 *
 * <p>The node list is kept sorted by {@link NodeAddress#id()}, so every node holds the same
 * list whatever order {@code --cluster} gave it in.
 *
 * @param nodes every node, this one included, sorted by id, without duplicates
 * @param self this node; one of {@code nodes}
 */
public record Topology(List<NodeAddress> nodes, NodeAddress self) {
  private static final Comparator<NodeAddress> BY_ID = Comparator.comparing(NodeAddress::id);

  public Topology {
    nodes = nodes.stream().sorted(BY_ID).toList();
    if (nodes.isEmpty()) throw new IllegalArgumentException("a cluster has at least one node");
    if (new HashSet<>(nodes).size() != nodes.size()) throw new IllegalArgumentException("duplicate nodes in " + nodes);
    if (!nodes.contains(self)) throw new IllegalArgumentException(self + " is not one of " + nodes);
  }

  /** A cluster of this node alone. */
  public static Topology single(NodeAddress self) {
    return new Topology(List.of(self), self);
  }

  /**
   * The topology that {@code --cluster urls} gives a node listening on {@code listenHost}:
   * {@code listenPort}. This node is the one URL whose port is the listening port and whose host
   * is the listening host (or, when listening on every address, any address of this machine).
   *
   * @throws IllegalArgumentException with a one-line reason: an empty list, a malformed URL, a
   *     node named twice, no URL or several URLs naming this node
   */
  public static Topology fromUrls(List<String> urls, String listenHost, int listenPort) {
    String selfUrl = "http://" + hostForUrl(listenHost) + ":" + listenPort;
    if (urls.isEmpty()) throw new IllegalArgumentException("--cluster is empty: give every node's URL, this one (" + selfUrl + ") included");
    List<NodeAddress> nodes = new ArrayList<>();
    Set<NodeAddress> seen = new HashSet<>();
    for (String url : urls) {
      NodeAddress node;
      try {
        node = NodeAddress.parse(url);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--cluster: " + e.getMessage(), e);
      }
      if (!seen.add(node)) throw new IllegalArgumentException("--cluster names " + node + " twice");
      nodes.add(node);
    }
    List<NodeAddress> selves = nodes.stream().filter(n -> n.port() == listenPort && sameHost(n.host(), listenHost)).toList();
    if (selves.isEmpty()) {
      throw new IllegalArgumentException("--cluster must name this node, " + selfUrl + ", among " + nodes
          + " (the list names every node, this one included)");
    }
    if (selves.size() > 1) throw new IllegalArgumentException("--cluster names this node (" + selfUrl + ") more than once: " + selves);
    return new Topology(nodes, selves.getFirst());
  }

  public int size() {
    return nodes.size();
  }

  public boolean isSingle() {
    return nodes.size() == 1;
  }

  /** The other nodes. */
  public List<NodeAddress> peers() {
    return nodes.stream().filter(n -> !n.equals(self)).toList();
  }

  private static boolean sameHost(String urlHost, String listenHost) {
    String a = unbracket(urlHost);
    String b = unbracket(listenHost);
    if (a.equalsIgnoreCase(b)) return true;
    try {
      InetAddress url = InetAddress.getByName(a);
      InetAddress listen = InetAddress.getByName(b);
      if (url.equals(listen)) return true;
      // Listening on every address: the URL names this node if it names this machine.
      return listen.isAnyLocalAddress() && isThisMachine(url);
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static boolean isThisMachine(InetAddress address) {
    try {
      return address.isLoopbackAddress() || NetworkInterface.getByInetAddress(address) != null;
    } catch (SocketException e) {
      return false;
    }
  }

  private static String unbracket(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  private static String hostForUrl(String host) {
    return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
  }
}
