package dev.shale.server.tls;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Where a node's TLS credentials are ({@code shale server --tls-cert --tls-key --tls-client-ca}).
 *
 * @param certificateChain the node's certificate, then its issuers' (PEM)
 * @param key the certificate's private key (PEM, PKCS#8 or OpenSSL's)
 * @param clientCa the CA (PEM) whose certificates HTTP clients must present; null: clients present none
 */
public record TlsFiles(Path certificateChain, Path key, @Nullable Path clientCa) {}
