package dev.shale.app;

import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code shale certs client}: a client's certificate, issued by the directory's CA. */
@Command(
    name = "client",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Issues a client's certificate: client.NAME.crt (the chain) and client.NAME.key in --dir.",
      "A node started with --tls-client-ca ca.crt serves only clients that present such a",
      "certificate (mutual TLS): curl --cert client.NAME.crt --key client.NAME.key, or the",
      "--cert and --key of Shale's own client commands.",
      ""
    })
final class CertsClientCommand implements Callable<Integer> {
  @Mixin CertsDirectory files;

  @Option(names = "--name", required = true, paramLabel = "<name>",
      description = "The client's name: the certificate's common name and part of its files' names.")
  String name;

  @Override
  public Integer call() {
    String prefix = "client." + files.checkedName(name);
    Instant[] validity = files.validity(365);
    var ca = files.loadCa();
    files.prepare(prefix + ".key", prefix + ".crt");
    files.write(ca.issueClient(name, validity[0], validity[1]), prefix);
    return 0;
  }
}
