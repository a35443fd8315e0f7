package dev.shale.app;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code shale nodes remove URL}: takes a member out of the cluster, and exits 0 once it is out. */
@Command(
    name = "remove",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Removes the member URL from the cluster, through the --via member.",
      "The member becomes leaving (its copies go to the members that take them over), then it is",
      "removed from the cluster map and from the members that agree on it. Prints the progress;",
      "exits 0 once it is removed, 1 when the cluster refuses (another change under way: the reason",
      "says) or cannot be reached. The call is signed with the cluster secret (--cluster-secret-file).",
      "The removed node logs that it may be stopped. A member that is down is removed with --dead:",
      "it becomes leaving, dead, and the members that take its keys over copy them from the other",
      "replicas; it is removed once they have.",
      ""
    })
final class NodesRemoveCommand implements Callable<Integer> {
  /** Between two looks at the map while the member leaves. */
  private static final Duration POLL = Duration.ofMillis(500);

  @Spec CommandSpec spec;
  @Mixin AdminOptions admin;

  @Parameters(paramLabel = "<url>", description = "The member to remove, as its base URL.")
  String member;

  @Option(names = "--dead",
      description = "The member is down: its copies are rebuilt from the other replicas, not pulled from it.")
  boolean dead;

  @Override
  public Integer call() throws InterruptedException {
    NodeAddress leaving;
    try {
      leaving = NodeAddress.parse(member);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    TopologyCalls calls = new TopologyCalls(admin.client());
    long deadline = System.nanoTime() + Duration.ofMillis(admin.timeoutMillis).toNanos();
    out.println("removing " + leaving + (dead ? " (dead)" : "") + " through " + admin.via);
    out.flush();
    ClusterMap map = calls.remove(leaving, dead);
    // With data movement wired, the answer comes once the member is leaving; it is removed once its
    // copies are handed over (or, dead, rebuilt from the other replicas).
    String last = "";
    while (map.member(leaving).isPresent()) {
      String now = describe(map.member(leaving));
      if (!now.equals(last)) {
        out.println(leaving + " is " + now);
        out.flush();
        last = now;
      }
      if (System.nanoTime() > deadline) {
        spec.commandLine().getErr().println("shale: " + leaving + " is still " + now + " after --timeout; it goes on in the cluster");
        return 1;
      }
      Thread.sleep(POLL.toMillis());
      map = calls.map();
    }
    out.println("removed " + leaving + ": cluster map version " + map.version() + ", members " + map.addresses());
    return 0;
  }

  private static String describe(Optional<Member> member) {
    return member.map(m -> NodesListCommand.stateOf(m) + (m.progress().isEmpty() ? "" : " (" + m.progress() + ")"))
        .orElse("removed");
  }
}
