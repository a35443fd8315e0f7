package dev.shale.app;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.server.StatusBody;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code shale nodes endpoints KEY} (Cassandra's {@code nodetool getendpoints}): the members that
 * hold KEY's replicas, most preferred first, by the cluster map the {@code --via} member has and
 * the placement every coordinator uses ({@link ClusterMap#readReplicas}: no second copy of it).
 */
@Command(
    name = "endpoints",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Prints the members that hold KEY's replicas, most preferred first.",
      "That is the key's preference list by the cluster map of the --via member: where a read of the",
      "key goes. While a member joins or leaves, also the replicas it will have once the change is",
      "done (writes go to both).",
      ""
    })
final class NodesEndpointsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin AdminOptions admin;

  @Parameters(index = "0", paramLabel = "KEY", description = "The key, as an id is once percent-decoded: its UTF-8 bytes.")
  String key;

  @Option(names = "--from", paramLabel = "<n>",
      description = "How many replicas (a request's from). Default: the cluster's replication factor.")
  @Nullable Integer from;

  @Option(names = "--json", description = "Print one JSON object, for scripts.")
  boolean json;

  @Override
  public Integer call() {
    if (from != null && from < 1) throw new ParameterException(spec.commandLine(), "--from must be at least 1: " + from);
    ClusterMap map = new TopologyCalls(admin.client()).map();
    int replicas = from != null ? from : map.replicationFactor();
    if (replicas > map.members().size()) {
      throw new ParameterException(spec.commandLine(), "--from " + replicas + " is more than the cluster's "
          + map.members().size() + " members");
    }
    byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
    List<NodeAddress> reads = map.readReplicas(keyBytes, replicas);
    List<NodeAddress> after = map.replicasAfterChange(keyBytes, replicas);
    PrintWriter out = spec.commandLine().getOut();
    out.println(json ? json(map, reads, after) : text(map, replicas, reads, after));
    return 0;
  }

  private String text(ClusterMap map, int replicas, List<NodeAddress> reads, List<NodeAddress> after) {
    StringBuilder text = new StringBuilder("'" + PrintableBytes.text(key.getBytes(StandardCharsets.UTF_8), PrintableBytes.ALL)
        + "': " + reads.size() + " replica" + (reads.size() == 1 ? "" : "s") + " of " + replicas + ", most preferred first"
        + " (cluster map version " + map.version() + ", replication factor " + map.replicationFactor() + ")\n");
    for (int i = 0; i < reads.size(); i++) {
      text.append(String.format("%d  %s  %s%n", i + 1, reads.get(i).url(), state(map, reads.get(i))));
    }
    if (!after.equals(reads)) {
      text.append("once the change under way is done (writes go to these too):\n");
      for (int i = 0; i < after.size(); i++) {
        text.append(String.format("%d  %s  %s%n", i + 1, after.get(i).url(), state(map, after.get(i))));
      }
    }
    return text.toString().stripTrailing();
  }

  private String json(ClusterMap map, List<NodeAddress> reads, List<NodeAddress> after) {
    return "{" + PrintableBytes.json("key", key.getBytes(StandardCharsets.UTF_8), PrintableBytes.ALL) + ", \"version\": "
        + map.version() + ", \"replicationFactor\": " + map.replicationFactor() + ", \"replicas\": " + urls(map, reads)
        + ", \"replicasAfterChange\": " + urls(map, after) + "}";
  }

  private static String urls(ClusterMap map, List<NodeAddress> nodes) {
    StringJoiner list = new StringJoiner(", ", "[", "]");
    for (NodeAddress node : nodes) {
      list.add("{\"url\": " + StatusBody.quote(node.url()) + ", \"state\": " + StatusBody.quote(state(map, node)) + "}");
    }
    return list.toString();
  }

  private static String state(ClusterMap map, NodeAddress node) {
    return map.member(node).map(NodesListCommand::stateOf).orElse("?");
  }
}
