package dev.shale.app;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code shale certs node}: a node's certificate, issued by the directory's CA. */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Issues a node's certificate: node.NAME.crt (the chain) and node.NAME.key in --dir.",
      "The certificate names every --host: the host names and addresses clients and peers reach",
      "the node by, which must include its address in the --cluster list (peers check it).",
      "It serves both ends of TLS: the node's port, and its connections to its peers.",
      ""
    })
final class CertsNodeCommand implements Callable<Integer> {
  @Mixin CertsDirectory files;

  @Option(names = "--name", required = true, paramLabel = "<name>",
      description = "The node's name: the certificate's common name and part of its files' names.")
  String name;

  @Option(names = "--host", required = true, split = ",", paramLabel = "<host>",
      description = "A host name or IP address of the node (repeat the option, or separate with commas).")
  List<String> hosts;

  @Override
  public Integer call() {
    String prefix = CertsDirectory.nodeFilePrefix(files.checkedName(name));
    Instant[] validity = files.validity(365);
    var ca = files.loadCa();
    files.prepare(prefix + ".key", prefix + ".crt");
    try {
      files.write(ca.issueNode(name, hosts, validity[0], validity[1]), prefix);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(files.spec.commandLine(), "--host: " + e.getMessage());
    }
    return 0;
  }
}
