package dev.shale.app;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code shale nodes compact}: a full compaction of one node's store ({@code POST /v0/admin/compact}). */
@Command(
    name = "compact",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Compacts the whole store of the --via node now.",
      "Afterwards one version per key, and expired tombstones gone. Prints what it did once done",
      "(which may take minutes).",
      ""
    })
final class NodesCompactCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin AdminOptions admin;

  @Override
  public Integer call() {
    spec.commandLine().getOut().println(admin.client().post("/v0/admin/compact"));
    return 0;
  }
}
