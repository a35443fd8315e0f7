package dev.shale.app;

import dev.shale.server.tls.CertificateAuthority;
import java.io.IOException;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code shale certs ca}: a new CA, ca.crt and ca.key in the directory. */
@Command(
    name = "ca",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Makes a new certificate authority: ca.crt and ca.key in --dir.",
      "Every node and client certificate of a cluster is issued by it; nodes trust it (ca.crt).",
      "An existing CA is kept unless --overwrite is given: replacing it means reissuing every",
      "certificate (docs/operations.md, \"Rotating certificates\").",
      ""
    })
final class CertsCaCommand implements Callable<Integer> {
  @Mixin CertsDirectory files;

  @Option(names = "--name", paramLabel = "<name>", defaultValue = "Shale CA",
      description = "The CA's common name. Default: ${DEFAULT-VALUE}.")
  String name;

  @Override
  public Integer call() {
    Instant[] validity = files.validity(3650);
    if (name.isBlank()) throw new picocli.CommandLine.ParameterException(files.spec.commandLine(), "--name: must not be blank");
    files.prepare(CertsDirectory.CA_KEY, CertsDirectory.CA_CERTIFICATE);
    CertificateAuthority ca = CertificateAuthority.create(name, validity[0], validity[1]);
    try {
      ca.writeTo(files.dir.resolve(CertsDirectory.CA_CERTIFICATE), files.dir.resolve(CertsDirectory.CA_KEY));
    } catch (IOException e) {
      throw new ToolFailure("cannot write the CA: " + e.getMessage(), e);
    }
    files.print(ca.certificate(), files.dir.resolve(CertsDirectory.CA_CERTIFICATE), files.dir.resolve(CertsDirectory.CA_KEY));
    return 0;
  }
}
