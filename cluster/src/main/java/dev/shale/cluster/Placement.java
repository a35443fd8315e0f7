package dev.shale.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Where keys live: rendezvous (highest random weight) hashing over the cluster's nodes.
 *
 * <p>Each node gets a weight per key, {@code avalanche(xxh64(key) ^ seed(node))} with
 * {@code seed(node) = xxh64(node id)}; the key's preference list is the nodes by descending
 * weight (ties, which need a 64-bit collision, by id). Hence:
 * <ul>
 *   <li>it depends on the set of nodes only, not on the order of {@code --cluster};
 *   <li>the list for {@code from = k} is a prefix of the list for {@code k + 1} (replication
 *       stores a key on the first {@code from} nodes);
 *   <li>adding a node moves to it only the keys for which it now weighs most, about 1/N of
 *       them, and moves no key between the old nodes;
 *   <li>the balance is that of a uniform hash: see docs/design.md, "Cluster", for measurements
 *       against consistent hashing with virtual nodes.
 * </ul>
 * Hashing the key once and mixing it with each node's seed costs one xxh64 of the key plus a
 * few multiplications per node: O(N) per key, nothing to keep in memory, which is cheap for
 * the tens of nodes a static cluster has.
 *
 * <p>The weights are part of the data's layout across nodes: changing the hash or the mix
 * moves keys. Do not change.
 *
 * <p>Immutable and thread safe.
 */
public final class Placement {
  /** Seed of the key hash. Do not change: it decides where stored keys live. */
  private static final long KEY_SEED = 0;

  private final Topology topology;
  private final List<NodeAddress> nodes; // sorted by id, as in the topology
  private final long[] seeds; // seeds[i] belongs to nodes.get(i)

  public Placement(Topology topology) {
    this.topology = topology;
    this.nodes = topology.nodes();
    this.seeds = new long[nodes.size()];
    for (int i = 0; i < seeds.length; i++) {
      seeds[i] = XxHash64.hash(nodes.get(i).id().getBytes(StandardCharsets.UTF_8), KEY_SEED);
    }
  }

  public Topology topology() {
    return topology;
  }

  /**
   * The hash of {@code key} the weights mix with each node's seed: anti-entropy repair cuts the
   * hash space into leaves by its top bits (docs/format.md, "Repair requests").
   */
  public static long keyHash(byte[] key) {
    return XxHash64.hash(key, KEY_SEED);
  }

  /** The node that owns {@code key}: the first of its preference list. */
  public NodeAddress owner(byte[] key) {
    long keyHash = keyHash(key);
    int best = 0;
    long bestWeight = weight(keyHash, 0);
    for (int i = 1; i < seeds.length; i++) {
      long w = weight(keyHash, i);
      // Nodes are in id order, so keeping the first of equal weights breaks ties by id.
      if (Long.compareUnsigned(w, bestWeight) > 0) {
        best = i;
        bestWeight = w;
      }
    }
    return nodes.get(best);
  }

  /** Whether this node owns {@code key}. */
  public boolean isLocal(byte[] key) {
    return owner(key).equals(topology.self());
  }

  /**
   * The first {@code from} nodes of {@code key}'s preference list, most preferred first.
   *
   * @throws IllegalArgumentException unless {@code 1 <= from <= } the number of nodes
   */
  public List<NodeAddress> preferenceList(byte[] key, int from) {
    if (from < 1 || from > nodes.size()) {
      throw new IllegalArgumentException("from must be in [1, " + nodes.size() + "]: " + from);
    }
    long keyHash = keyHash(key);
    Integer[] order = new Integer[nodes.size()];
    long[] weights = new long[nodes.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
      weights[i] = weight(keyHash, i);
    }
    // Stable sort: equal weights stay in id order, as in owner().
    Arrays.sort(order, (a, b) -> Long.compareUnsigned(weights[b], weights[a]));
    List<NodeAddress> list = new ArrayList<>(from);
    for (int i = 0; i < from; i++) list.add(nodes.get(order[i]));
    return List.copyOf(list);
  }

  private long weight(long keyHash, int node) {
    return XxHash64.avalanche(keyHash ^ seeds[node]);
  }
}
