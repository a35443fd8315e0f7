package dev.shale.app;

import dev.shale.cluster.auth.TokenSecrets;
import dev.shale.server.tls.CertificateAuthority;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The credentials {@code shale cluster} gives its nodes unless told {@code --insecure}
 * (docs/operations.md, "A local cluster"): a CA and one node certificate per node in {@code
 * <data>/certs}, made with {@code shale certs}' code and file names, and a bootstrap admin token
 * in {@code <data>/admin.token} (mode 0600).
 *
 * <p>The CA and the admin token are kept across runs (made only when missing), so that clients
 * given {@code ca.crt} and the token keep working when the cluster restarts on the same data; the
 * node certificates are issued again at each run, for the hosts of this run.
 */
record LocalClusterCredentials(Path caCertificate, List<Path> nodeCertificates, List<Path> nodeKeys, Path adminToken) {
  static final String CERTS_DIRECTORY = "certs";
  static final String ADMIN_TOKEN = "admin.token";
  private static final int CA_DAYS = 3650;
  private static final int NODE_DAYS = 365;

  /** Makes (or reuses) the credentials of {@code nodes} nodes reached at {@code host}, under {@code data}. */
  static LocalClusterCredentials prepare(Path data, String host, int nodes) {
    Path certs = data.resolve(CERTS_DIRECTORY);
    Instant now = Instant.now();
    Instant notBefore = now.minus(CertsDirectory.BACKDATE);
    try {
      Files.createDirectories(certs);
      CertificateAuthority ca = caIn(certs, notBefore, now.plus(Duration.ofDays(CA_DAYS)));
      List<Path> chains = new ArrayList<>();
      List<Path> keys = new ArrayList<>();
      for (int i = 0; i < nodes; i++) {
        // As 'shale certs node --name node-<i>' names its files; the certificate must name the
        // host of the node's URL, which its peers and clients check.
        String prefix = CertsDirectory.nodeFilePrefix("node-" + i);
        Path chain = certs.resolve(prefix + ".crt");
        Path key = certs.resolve(prefix + ".key");
        ca.issueNode("node-" + i, hostNames(host), notBefore, now.plus(Duration.ofDays(NODE_DAYS))).writeTo(chain, key);
        chains.add(chain);
        keys.add(key);
      }
      return new LocalClusterCredentials(certs.resolve(CertsDirectory.CA_CERTIFICATE), chains, keys, adminToken(data));
    } catch (IOException e) {
      throw new StartupException("cannot make the cluster's certificates and admin token under " + data + ": " + e.getMessage(), e);
    }
  }

  /** The names a node certificate carries: the cluster's host, and on loopback the usual spellings of it. */
  static List<String> hostNames(String host) {
    Set<String> names = new LinkedHashSet<>(List.of(host));
    if (ServerCommand.isLoopback(host)) names.addAll(List.of("127.0.0.1", "localhost"));
    return List.copyOf(names);
  }

  private static CertificateAuthority caIn(Path certs, Instant notBefore, Instant notAfter) throws IOException {
    Path certificate = certs.resolve(CertsDirectory.CA_CERTIFICATE);
    Path key = certs.resolve(CertsDirectory.CA_KEY);
    if (Files.exists(certificate) || Files.exists(key)) return CertificateAuthority.load(certificate, key);
    CertificateAuthority ca = CertificateAuthority.create("Shale local cluster CA", notBefore, notAfter);
    ca.writeTo(certificate, key);
    return ca;
  }

  private static Path adminToken(Path data) throws IOException {
    Path file = data.resolve(ADMIN_TOKEN);
    if (!Files.exists(file)) {
      SecretFile.write(file, (TokenSecrets.newSecret(new SecureRandom()) + "\n").getBytes(StandardCharsets.US_ASCII));
    }
    return file;
  }
}
