package dev.shale.app;

import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import dev.shale.server.StatusBody;
import java.io.PrintWriter;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code shale nodes list}: every member of the cluster map with its state and progress. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Prints the cluster map: every member with its state and progress.",
      "The map is the one the --via member has: its version, the replication factor, and every",
      "member with its state (joining, normal, leaving) and data movement progress.",
      ""
    })
final class NodesListCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin AdminOptions admin;

  @Option(names = "--json", description = "Print one JSON object, for scripts.")
  boolean json;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    ClusterMap map = new TopologyCalls(admin.client()).map();
    out.println(json ? json(map) : table(map));
    return 0;
  }

  static String table(ClusterMap map) {
    StringBuilder text = new StringBuilder("cluster map version " + map.version() + ", replication factor "
        + map.replicationFactor() + ", " + map.members().size() + " members\n");
    int width = map.members().stream().mapToInt(m -> m.address().url().length()).max().orElse(3);
    text.append(String.format("%-" + width + "s  %-8s  %s%n", "URL", "STATE", "PROGRESS"));
    for (Member m : map.members()) {
      text.append(String.format("%-" + width + "s  %-8s  %s%n", m.address().url(), stateOf(m), m.progress()));
    }
    return text.toString().stripTrailing();
  }

  /** A member's state as the operator reads it: {@code dead} for one leaving because it is down. */
  static String stateOf(Member m) {
    return m.dead() ? "dead" : m.state().wireName();
  }

  static String json(ClusterMap map) {
    StringJoiner members = new StringJoiner(", ", "[", "]");
    for (Member m : map.members()) {
      members.add("{\"url\": " + StatusBody.quote(m.address().url()) + ", \"state\": " + StatusBody.quote(m.state().wireName())
          + (m.dead() ? ", \"dead\": true" : "") + ", \"raftAddress\": " + StatusBody.quote(m.raftAddress())
          + ", \"progress\": " + StatusBody.quote(m.progress()) + "}");
    }
    return "{\"version\": " + map.version() + ", \"replicationFactor\": " + map.replicationFactor() + ", \"members\": " + members + "}";
  }
}
