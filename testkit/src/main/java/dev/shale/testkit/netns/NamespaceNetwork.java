package dev.shale.testkit.netns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * A private network of network namespaces on this machine, one per node of a test cluster, whose
 * links a test can cut, make lossy or slow. Needs root, {@code ip} and {@code nft} (Debian's
 * {@code nftables}); where a namespace cannot be made, {@link #create} skips the calling test
 * with the reason. {@link #createWithoutFaults} makes the same network for tests that only need
 * hosts apart (each node on its own address and ports, as on machines of its own): it needs root
 * and {@code ip} only, and its links cannot be faulted.
 *
 * <p>Use it in try-with-resources and close it after the nodes: {@link #close} removes every
 * namespace, link, rule and proxy, also when the test fails.
 */
public final class NamespaceNetwork implements AutoCloseable {
  /*
   * Layout. A bridge in the root namespace holds the host's address, <range>.1, so the test JVM
   * reaches every node directly. Node i lives in namespace "shale-<pid>-<k>-<i>" (the test JVM's
   * PID and a counter) with one veth pair to the bridge and the address <range>.(10 + i); every
   * node listens on NODE_PORT of its own address, which is also how it finds itself in the
   * --cluster list. The range is a /24 of 10.213.0.0/16 that SubnetLease holds for this network
   * alone. Each namespace caps TCP buffers at 256 KiB so that a few MiB of data fill a link:
   * what a fault cuts is then still on the way, not already in some buffer.
   *
   * Faults are nft tables in the namespace of the node whose links they act on, matching its
   * peers' addresses, so the test JVM's own connections (from <range>.1) never see them:
   * - partition: drops every packet to and from the peers (connections stall, as across a cut
   *   cable; nothing is refused);
   * - loss: drops a share of them, `numgen random mod 100 < N` with a counter;
   * - delay: DelayProxy, a TCP proxy in the test JVM on the host's address (this kernel has no
   *   netem). The --cluster list keeps naming the nodes' own addresses (a node must find itself
   *   in it), and DNAT rules route around it: in each peer's namespace, connections to the slow
   *   node's address go to a proxy that forwards to the slow node; in the slow node's
   *   namespace, connections to each peer go to a proxy that forwards to that peer. DNAT only
   *   moves new connections, so delayLinksOf must be called before the nodes start. The proxied
   *   connections reach their targets from the host's address, so a partition or loss rule
   *   does not act on a link that is also delayed.
   * Stopping a node (SIGSTOP / SIGCONT) needs no network: NodeSignals.
   */
  public static final int NODE_PORT = 8080;
  private static final String BUFFER_LIMIT = "4096 65536 262144";
  private static final AtomicInteger NETWORKS = new AtomicInteger();
  private static final String PARTITION_TABLE = "shale_partition";
  private static final String LOSS_TABLE = "shale_loss";
  private static final Pattern PACKETS = Pattern.compile("counter packets (\\d+)");

  private final SubnetLease subnet;
  private final String names; // "sh<pid>x<k>": the prefix of this network's link names
  private final List<String> namespaces = new ArrayList<>();
  private final List<DelayProxy> proxies = new ArrayList<>();

  private NamespaceNetwork(SubnetLease subnet, String names) {
    this.subnet = subnet;
    this.names = names;
  }

  /** Makes a network of {@code nodes} namespaces (at most 10), or skips the calling test if this machine cannot. */
  public static NamespaceNetwork create(int nodes) {
    return create(nodes, true);
  }

  /**
   * Makes a network of {@code nodes} namespaces (at most 10) without nft, whose links no fault
   * acts on ({@link #partition}, {@link #loseShare} and {@link #delayLinksOf} fail on it), or
   * skips the calling test if this machine cannot make namespaces.
   */
  public static NamespaceNetwork createWithoutFaults(int nodes) {
    return create(nodes, false);
  }

  private static NamespaceNetwork create(int nodes, boolean faults) {
    if (nodes < 1 || nodes > 10) throw new IllegalArgumentException("1 to 10 nodes, not " + nodes);
    skipUnlessAvailable(faults);
    List<String> removed = StaleNetworks.remove();
    if (!removed.isEmpty()) System.out.println("NamespaceNetwork: removed what a killed run left: " + removed);
    long pid = ProcessHandle.current().pid();
    int k = NETWORKS.getAndIncrement() % 100;
    NamespaceNetwork network;
    try {
      network = new NamespaceNetwork(SubnetLease.take(), "sh" + pid + "x" + k);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      network.build(nodes, "shale-" + pid + "-" + k + "-");
      return network;
    } catch (RuntimeException e) {
      network.close();
      throw e;
    }
  }

  private static void skipUnlessAvailable(boolean faults) {
    String missing = whatIsMissing(faults);
    if (missing == null) return;
    System.out.println("NamespaceNetwork: skipping: " + missing);
    Assumptions.abort(missing);
  }

  // Null when this machine can make the network (with nft in its namespaces if `faults`); else why not.
  private static @Nullable String whatIsMissing(boolean faults) {
    if (faults) {
      HostCommand.Result nft = HostCommand.attempt("nft", "--version");
      if (!nft.ok()) return "network fault tests need nft (Debian package nftables): " + nft.describe();
    }
    String probe = "shale-probe-" + ProcessHandle.current().pid();
    HostCommand.Result made = HostCommand.attempt("ip", "netns", "add", probe);
    if (!made.ok()) return "tests across namespaces need network namespaces (root and ip): " + made.describe();
    HostCommand.Result rules = faults ? HostCommand.attempt("ip", "netns", "exec", probe, "nft", "list", "ruleset") : made;
    HostCommand.attempt("ip", "netns", "del", probe);
    return rules.ok() ? null : "network fault tests need nft inside a namespace: " + rules.describe();
  }

  private void build(int nodes, String namespacePrefix) {
    String bridge = names + "b";
    HostCommand.run("ip", "link", "add", bridge, "type", "bridge");
    HostCommand.run("ip", "addr", "add", hostAddress() + "/24", "dev", bridge);
    HostCommand.run("ip", "link", "set", bridge, "up");
    for (int i = 0; i < nodes; i++) {
      String namespace = namespacePrefix + i;
      String veth = names + "v" + i;
      HostCommand.run("ip", "netns", "add", namespace);
      namespaces.add(namespace);
      HostCommand.run("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", namespace);
      HostCommand.run("ip", "link", "set", veth, "master", bridge, "up");
      HostCommand.run("ip", "-n", namespace, "addr", "add", nodeAddress(i) + "/24", "dev", "eth0");
      HostCommand.run("ip", "-n", namespace, "link", "set", "eth0", "up");
      HostCommand.run("ip", "-n", namespace, "link", "set", "lo", "up");
      HostCommand.run("ip", "netns", "exec", namespace, "sysctl", "-q", "-w",
          "net.ipv4.tcp_rmem=" + BUFFER_LIMIT, "net.ipv4.tcp_wmem=" + BUFFER_LIMIT);
    }
  }

  public int size() {
    return namespaces.size();
  }

  /** The test JVM's address on this network. */
  public String hostAddress() {
    return subnet.address(1);
  }

  /** Node {@code i}'s address, in its own namespace. */
  public String nodeAddress(int i) {
    return subnet.address(10 + i);
  }

  /** Node {@code i}'s base URL, {@code http://<address>:NODE_PORT}. */
  public String nodeUrl(int i) {
    return "http://" + nodeAddress(i) + ":" + NODE_PORT;
  }

  /** What runs a command in node {@code i}'s namespace: {@code ip netns exec <ns>}, which execs the command in place. */
  public List<String> commandPrefix(int i) {
    return List.of("ip", "netns", "exec", namespaces.get(i));
  }

  /** Cuts node {@code i} off from every other node (the host still reaches it) until {@link #heal}. */
  public void partition(int i) {
    addTable(i, PARTITION_TABLE, "drop");
  }

  public void heal(int i) {
    nft(i, "delete table inet " + PARTITION_TABLE);
  }

  /** Drops {@code percent} % of the packets between node {@code i} and the others, at random, until {@link #stopLoss}. */
  public void loseShare(int i, int percent) {
    if (percent < 1 || percent > 100) throw new IllegalArgumentException("a share of 1 to 100 %, not " + percent);
    addTable(i, LOSS_TABLE, "numgen random mod 100 < " + percent + " counter drop");
  }

  /** The packets the loss on node {@code i}'s links dropped so far. */
  public long lostPackets(int i) {
    Matcher counters = PACKETS.matcher(nft(i, "list table inet " + LOSS_TABLE));
    long packets = 0;
    while (counters.find()) packets += Long.parseLong(counters.group(1));
    return packets;
  }

  public void stopLoss(int i) {
    nft(i, "delete table inet " + LOSS_TABLE);
  }

  /**
   * Routes every link of node {@code i} through delaying proxies (no delay until told): call it
   * before the nodes start, as only new connections take the new route.
   */
  public DelayedLinks delayLinksOf(int i) {
    LinkDelay delay = new LinkDelay();
    String toSlowNode = dnat(i, startProxy(i, delay));
    StringBuilder fromSlowNode = new StringBuilder();
    for (int peer = 0; peer < size(); peer++) {
      if (peer == i) continue;
      fromSlowNode.append(dnat(peer, startProxy(peer, delay)));
      nft(peer, "add table ip shale_delay ; " + natChain() + toSlowNode);
    }
    nft(i, "add table ip shale_delay ; " + natChain() + fromSlowNode);
    return new DelayedLinks(delay);
  }

  private int startProxy(int target, LinkDelay delay) {
    try {
      DelayProxy proxy = DelayProxy.start(hostAddress(), new InetSocketAddress(nodeAddress(target), NODE_PORT), delay);
      proxies.add(proxy);
      return proxy.port();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a delaying proxy on " + hostAddress(), e);
    }
  }

  private static String natChain() {
    return "add chain ip shale_delay out { type nat hook output priority -100 ; } ; ";
  }

  private String dnat(int target, int proxyPort) {
    return "add rule ip shale_delay out ip daddr " + nodeAddress(target) + " tcp dport " + NODE_PORT
        + " dnat to " + hostAddress() + ":" + proxyPort + " ; ";
  }

  // A table with an input and an output chain whose rule `action`s every packet from or to node i's peers.
  private void addTable(int i, String table, String action) {
    String peers = String.join(", ", IntStream.range(0, size()).filter(p -> p != i).mapToObj(this::nodeAddress).toList());
    nft(i, "add table inet " + table + " ; "
        + "add chain inet " + table + " in { type filter hook input priority 0 ; } ; "
        + "add chain inet " + table + " out { type filter hook output priority 0 ; } ; "
        + "add rule inet " + table + " in ip saddr { " + peers + " } " + action + " ; "
        + "add rule inet " + table + " out ip daddr { " + peers + " } " + action);
  }

  private String nft(int i, String commands) {
    return HostCommand.run("ip", "netns", "exec", namespaces.get(i), "nft", commands);
  }

  /** Removes the proxies, every namespace (killing what still runs in it), link and rule; then frees the range. */
  @Override
  public void close() {
    List<String> failures = new ArrayList<>();
    for (DelayProxy proxy : proxies) proxy.close();
    for (int i = 0; i < namespaces.size(); i++) {
      StaleNetworks.killProcessesIn(namespaces.get(i));
      HostCommand.Result deleted = HostCommand.attempt("ip", "netns", "del", namespaces.get(i));
      if (!deleted.ok()) failures.add(deleted.describe());
      HostCommand.attempt("ip", "link", "del", names + "v" + i); // usually gone with its namespace's end
    }
    HostCommand.Result bridge = HostCommand.attempt("ip", "link", "del", names + "b");
    if (!bridge.ok() && !bridge.output().contains("Cannot find device")) failures.add(bridge.describe());
    try {
      subnet.close();
    } catch (IOException e) {
      failures.add("cannot release the address range: " + e);
    }
    if (!failures.isEmpty()) throw new IllegalStateException("the network was not fully removed: " + failures);
  }
}
