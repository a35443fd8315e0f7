package dev.shale.app;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code shale certs}: makes the certificates of a TLS cluster (docs/operations.md, "TLS"), as
 * {@code cockroach cert} does: a CA, node certificates issued by it, client certificates. Each
 * subcommand is one small class mixing in {@link CertsDirectory}.
 */
@Command(
    name = "certs",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Makes the certificates of a TLS cluster: a CA, node and client certificates.",
      "Every file goes in one directory (--dir): ca.crt and ca.key (the CA), node.NAME.crt and",
      "node.NAME.key (a node's chain and key: --tls-cert and --tls-key of 'shale server'),",
      "client.NAME.crt and client.NAME.key (a client's). Keys are ECDSA P-256, PKCS#8 PEM, mode 0600.",
      "Keep ca.key away from the nodes: only 'shale certs' needs it.",
      ""
    },
    subcommands = {CertsCaCommand.class, CertsNodeCommand.class, CertsClientCommand.class})
final class CertsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "missing subcommand: try 'shale certs --help'");
  }
}
