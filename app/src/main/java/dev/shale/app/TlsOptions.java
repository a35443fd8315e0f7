package dev.shale.app;

import dev.shale.server.tls.NodeTls;
import dev.shale.server.tls.TlsFiles;
import dev.shale.server.tls.TlsSetupException;
import java.nio.file.Path;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * {@code shale server}'s TLS files, all in one place: the node's certificate chain and key, the CA
 * of HTTP clients' certificates, and the cluster CA that signs every node's certificate, with the
 * rules on which go together (docs/design.md, "Security"). Mixed in with {@code @Mixin TlsOptions tls;}.
 */
final class TlsOptions {
  @Option(names = "--tls-cert", paramLabel = "<chain.pem>",
      description =
          "Serve HTTPS (TLS 1.3 and 1.2) on --port with this certificate chain (PEM: the node's certificate, then its "
          + "issuers'; 'shale certs node' makes one). Needs --tls-key; a node of a cluster needs --tls-cluster-ca too. The "
          + "files are reloaded when they change: new connections get the new certificate, open ones keep theirs.")
  @Nullable Path certificateChain;

  @Option(names = "--tls-key", paramLabel = "<key.pem>",
      description = "The private key of --tls-cert (PEM, PKCS#8 or OpenSSL's EC/RSA form, unencrypted); keep it mode 0600.")
  @Nullable Path key;

  @Option(names = "--tls-client-ca", paramLabel = "<ca.pem>",
      description = "With --tls-cert: every client must present a certificate issued by this CA (mutual TLS; "
          + "'shale certs client' makes them). Without it clients present none.")
  @Nullable Path clientCa;

  @Option(names = "--tls-cluster-ca", paramLabel = "<ca.pem>",
      description = "With --tls-cert on a node of a cluster: the certificate of the CA (PEM) that signs every member's "
          + "certificate. Every connection between the nodes then runs over mutual TLS: a peer must present a node "
          + "certificate of this CA naming the host of its URL in the cluster map. Every node of a cluster needs it, or none.")
  @Nullable Path clusterCa;

  /** Whether the node serves TLS (--tls-cert given). */
  boolean serves() {
    return certificateChain != null;
  }

  /**
   * The node's TLS, read and checked now (null without the options); {@code member}: the node is
   * one of a cluster (--cluster, --join, or a cluster's store). Options that do not go together
   * are a usage error, files that cannot be used a one-line refusal; both exit with status 2.
   */
  @Nullable NodeTls open(boolean member, LongSupplier wallMillis) {
    if (certificateChain == null && key == null && clientCa == null && clusterCa == null) return null;
    if (certificateChain == null || key == null) {
      throw usage("--tls-cert and --tls-key go together (and --tls-client-ca and --tls-cluster-ca need them)");
    }
    if (member && clusterCa == null) {
      throw usage("--tls-cert on a node of a cluster needs --tls-cluster-ca, the CA of every member's certificate: "
          + "the connections between the nodes run over TLS too");
    }
    if (!member && clusterCa != null) {
      throw usage("--tls-cluster-ca is for a node of a cluster (--cluster or --join)");
    }
    try {
      return NodeTls.open(new TlsFiles(certificateChain, key, clientCa, clusterCa), wallMillis);
    } catch (TlsSetupException e) {
      throw new SettingsRefused("cannot serve TLS: " + e.getMessage());
    }
  }

  // One line, exit 2, as a usage error but without the hint to read --help: the line says what to give.
  private static SettingsRefused usage(String message) {
    return new SettingsRefused(message);
  }
}
