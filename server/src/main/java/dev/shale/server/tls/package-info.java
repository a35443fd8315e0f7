/**
 * TLS for the node's port and between the nodes of a cluster: the certificates ({@link dev.shale.server.tls.CertificateAuthority},
 * {@link dev.shale.server.tls.IssuedCertificate}: what {@code shale certs} makes), their PEM files
 * ({@link dev.shale.server.tls.PemFiles}), and the node's TLS setup built from them (docs/design.md,
 * "Security", "TLS on the port", "TLS between nodes"): {@link dev.shale.server.tls.NodeTls}.
 *
 * <p>Bouncy Castle builds and parses the certificates; the handshakes run on the JDK's own TLS
 * provider, chosen in one place ({@code TlsContexts}).
 */
package dev.shale.server.tls;
