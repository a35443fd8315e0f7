package dev.shale.server.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A node's TLS credentials read from its {@link TlsFiles} and checked: every file parses, the key
 * is the certificate's, and the certificate is valid at the time given. A node refuses to start
 * with credentials that fail (docs/operations.md, "TLS"), and keeps its old ones when new files fail.
 *
 * @param chain the node's certificate first, then its issuers'
 * @param clientCas the CAs HTTP clients' certificates must chain to; empty: no client certificates
 * @param clusterCas the CAs every node's certificate chains to (this node's too); empty: a node
 *     without TLS between nodes
 */
public record ServerCredentials(List<X509Certificate> chain, PrivateKey key, List<X509Certificate> clientCas,
    List<X509Certificate> clusterCas) {
  public ServerCredentials {
    chain = List.copyOf(chain);
    clientCas = List.copyOf(clientCas);
    clusterCas = List.copyOf(clusterCas);
  }

  /** The credentials in {@code files}, checked at {@code now}. */
  public static ServerCredentials load(TlsFiles files, Instant now) throws TlsSetupException {
    List<X509Certificate> chain = read(() -> PemFiles.readCertificates(files.certificateChain()));
    PrivateKey key = read(() -> PemFiles.readPrivateKey(files.key()));
    X509Certificate leaf = chain.getFirst();
    if (!KeyMatch.matches(leaf, key)) {
      throw new TlsSetupException("the key " + files.key() + " is not the private key of the certificate in " + files.certificateChain());
    }
    try {
      leaf.checkValidity(Date.from(now));
    } catch (CertificateExpiredException | CertificateNotYetValidException e) {
      boolean expired = e instanceof CertificateExpiredException;
      throw new TlsSetupException("the certificate in " + files.certificateChain() + " (" + leaf.getSubjectX500Principal().getName()
          + ") is " + (expired ? "expired since " + leaf.getNotAfter().toInstant() : "not valid before " + leaf.getNotBefore().toInstant())
          + " (now " + now + ")");
    }
    @Nullable Path clientCa = files.clientCa();
    List<X509Certificate> clientCas = clientCa == null ? List.of() : read(() -> PemFiles.readCertificates(clientCa));
    @Nullable Path clusterCa = files.clusterCa();
    List<X509Certificate> clusterCas = clusterCa == null ? List.of() : read(() -> PemFiles.readCertificates(clusterCa));
    if (clusterCa != null) requireNodeCertificate(chain, files.certificateChain(), clusterCas, clusterCa);
    return new ServerCredentials(chain, key, clientCas, clusterCas);
  }

  /**
   * Peers accept this node only with a node certificate of the cluster CA: one that is not (of
   * another CA, or a client's) would be refused by every peer, so the node does not start with it.
   */
  private static void requireNodeCertificate(List<X509Certificate> chain, Path chainFile, List<X509Certificate> clusterCas, Path clusterCa)
      throws TlsSetupException {
    try {
      CaTrust.of(clusterCas).checkNode(chain.toArray(X509Certificate[]::new));
    } catch (CertificateException e) {
      throw new TlsSetupException("the certificate in " + chainFile + " (" + chain.getFirst().getSubjectX500Principal().getName()
          + ") is not a node certificate of the cluster CA in " + clusterCa + ": " + ConnectionCertificates.reason(e));
    }
  }

  /** The node's own certificate. */
  public X509Certificate certificate() {
    return chain.getFirst();
  }

  private interface Read<T> {
    T read() throws IOException;
  }

  private static <T> T read(Read<T> read) throws TlsSetupException {
    try {
      return read.read();
    } catch (IOException e) {
      throw new TlsSetupException(String.valueOf(e.getMessage()), e);
    }
  }
}
