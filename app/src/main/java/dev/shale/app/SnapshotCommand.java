package dev.shale.app;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code shale snapshot create|list|delete}: a node's snapshots (docs/operations.md, "Snapshots"),
 * through its admin routes {@code /v0/admin/snapshot} and {@code /v0/admin/snapshots}.
 */
@Command(
    name = "snapshot",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Makes, lists or deletes snapshots of one node's store.",
      "Snapshots of the --via node are point-in-time checkpoints under <data>/snapshots/<name>",
      "that './shale server --data <copy>' serves as they were.",
      "  create [--name N]   prints the new snapshot's path",
      "  list                prints one line per snapshot: name, tables, bytes, path",
      "  delete --name N     deletes one",
      ""
    })
final class SnapshotCommand implements Callable<Integer> {
  private static final Pattern PATH = Pattern.compile("\"path\": \"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final Pattern ENTRY = Pattern.compile(
      "\\{\"name\": \"([^\"]*)\", \"path\": \"((?:[^\"\\\\]|\\\\.)*)\", \"tables\": (\\d+), \"bytes\": (\\d+)\\}");

  @Spec CommandSpec spec;
  @Mixin AdminOptions admin;

  @Parameters(index = "0", paramLabel = "create|list|delete", description = "What to do.")
  String action;

  @Option(names = "--name", paramLabel = "<name>",
      description = "The snapshot's name: 1 to 64 of A-Z a-z 0-9 . _ - (create: default the UTC time).")
  @Nullable String name;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    switch (action) {
      case "create" -> {
        out.println(pathOf(admin.client().post("/v0/admin/snapshot" + nameQuery(false))));
      }
      case "list" -> {
        if (name != null) throw usage("list takes no --name");
        Matcher entry = ENTRY.matcher(admin.client().get("/v0/admin/snapshots"));
        while (entry.find()) {
          out.println(entry.group(1) + "\t" + entry.group(3) + " tables\t" + entry.group(4) + " bytes\t" + unescape(entry.group(2)));
        }
      }
      case "delete" -> {
        admin.client().call("DELETE", "/v0/admin/snapshot" + nameQuery(true), new byte[0]);
        out.println("deleted " + name);
      }
      default -> throw usage("unknown action '" + action + "': give create, list or delete");
    }
    return 0;
  }

  private String nameQuery(boolean required) {
    if (name == null) {
      if (required) throw usage(action + " needs --name");
      return "";
    }
    return "?name=" + URLEncoder.encode(name, StandardCharsets.UTF_8);
  }

  /** The path a node's answer to {@code POST /v0/admin/snapshot} names (the whole answer if it names none). */
  static String pathOf(String answer) {
    Matcher path = PATH.matcher(answer);
    return path.find() ? unescape(path.group(1)) : answer;
  }

  private static String unescape(String json) {
    return json.replace("\\\"", "\"").replace("\\\\", "\\");
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
