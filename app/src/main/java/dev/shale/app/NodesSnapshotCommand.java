package dev.shale.app;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code shale nodes snapshot NAME}: a snapshot of every member's store under one name
 * (docs/operations.md, "Backup and restore"), each member's {@code POST /v0/admin/snapshot},
 * signed as every admin call. The members are those of the cluster map the --via member has;
 * they are asked at once, so that their snapshots are of about the same moment.
 */
@Command(
    name = "snapshot",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Snapshots every member of the cluster under one name.",
      "Reads the cluster map from the --via member, then asks every member at once for a snapshot",
      "NAME of its store (<data>/snapshots/NAME on its machine), signed with the cluster secret.",
      "Prints one line per member: its URL, ok or failed, and the snapshot's path or why it failed.",
      "Exit status 0 when every member made its snapshot, 1 when one did not (the others keep",
      "theirs: delete them with 'shale snapshot delete --name NAME --via <member>', or retry with",
      "another name), 2 for a usage error.",
      ""
    })
final class NodesSnapshotCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin AdminOptions admin;

  @Parameters(index = "0", paramLabel = "NAME",
      description = "The snapshots' name: 1 to 64 of A-Z a-z 0-9 . _ - (not starting with '.').")
  String name;

  /** One member's outcome: the snapshot's path, or why there is none. */
  record Outcome(String member, boolean ok, String pathOrReason) {}

  @Override
  public Integer call() throws InterruptedException {
    ClusterMap map = new TopologyCalls(admin.client()).map();
    List<Outcome> outcomes = snapshotAll(map.members().stream().map(Member::address).toList());
    PrintWriter out = spec.commandLine().getOut();
    out.println(summary(outcomes));
    return outcomes.stream().allMatch(Outcome::ok) ? 0 : Main.FAILED;
  }

  private List<Outcome> snapshotAll(List<NodeAddress> members) throws InterruptedException {
    String target = "/v0/admin/snapshot?name=" + URLEncoder.encode(name, StandardCharsets.UTF_8);
    List<Future<Outcome>> calls = new ArrayList<>();
    // One virtual thread per member: a member's snapshot takes a flush of its memtables.
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (NodeAddress member : members) calls.add(threads.submit(() -> snapshot(member, target)));
      List<Outcome> outcomes = new ArrayList<>();
      for (Future<Outcome> call : calls) {
        try {
          outcomes.add(call.get());
        } catch (ExecutionException e) {
          throw new IllegalStateException("a snapshot call failed unexpectedly", e.getCause());
        }
      }
      return outcomes;
    }
  }

  private Outcome snapshot(NodeAddress member, String target) {
    try {
      return new Outcome(member.url(), true, SnapshotCommand.pathOf(admin.client(member).post(target)));
    } catch (AdminCallException e) {
      return new Outcome(member.url(), false, String.valueOf(e.getMessage()));
    }
  }

  /** The summary: a line per member, then how many made their snapshot. */
  static String summary(List<Outcome> outcomes) {
    int width = outcomes.stream().mapToInt(o -> o.member().length()).max().orElse(6);
    StringBuilder text = new StringBuilder();
    text.append(String.format("%-" + width + "s  %-6s  %s%n", "MEMBER", "RESULT", "PATH OR REASON"));
    for (Outcome o : outcomes) {
      text.append(String.format("%-" + width + "s  %-6s  %s%n", o.member(), o.ok() ? "ok" : "failed", o.pathOrReason()));
    }
    long ok = outcomes.stream().filter(Outcome::ok).count();
    text.append(ok).append(" of ").append(outcomes.size()).append(" members made their snapshot");
    return text.toString();
  }
}
