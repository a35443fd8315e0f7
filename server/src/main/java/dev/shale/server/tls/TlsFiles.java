package dev.shale.server.tls;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Where a node's TLS credentials are ({@code shale server --tls-cert --tls-key --tls-client-ca
 * --tls-cluster-ca}).
 *
 * @param certificateChain the node's certificate, then its issuers' (PEM)
 * @param key the certificate's private key (PEM, PKCS#8 or OpenSSL's)
 * @param clientCa the CA (PEM) whose certificates HTTP clients must present; null: clients present none
 * @param clusterCa the CA (PEM; during a rotation, two) that signs every node's certificate: with
 *     it, connections between nodes run over mutual TLS (docs/design.md, "TLS between nodes");
 *     null: a node without peers
 */
public record TlsFiles(Path certificateChain, Path key, @Nullable Path clientCa, @Nullable Path clusterCa) {
  /** The files of a node without peers. */
  public TlsFiles(Path certificateChain, Path key, @Nullable Path clientCa) {
    this(certificateChain, key, clientCa, null);
  }
}
