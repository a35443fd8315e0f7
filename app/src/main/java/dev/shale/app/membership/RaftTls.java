package dev.shale.app.membership;

import dev.shale.server.tls.NodeTls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;

/**
 * Mutual TLS for the cluster map's Raft group, from the node's own TLS (--tls-cert, --tls-key,
 * --tls-cluster-ca: the same credentials as its port and its peer connections): every
 * connection of this node's Raft server (votes, appends, snapshots from peers; proposals, reads
 * and reconfigurations from clients) and of its Raft clients runs over TLS in which both ends
 * present a node certificate of the cluster CA. Ratis's gRPC transport takes it
 * ({@link GrpcTlsConfig}); its Netty transport has no TLS.
 *
 * <p>The key and trust managers read the node's credentials in force at each handshake
 * ({@link NodeTls#peerKeyManager}), so renewed files reach the Raft port's new connections as
 * they reach the HTTP port's; connections already open keep theirs.
 *
 * <p>As a client, gRPC also checks that the peer's certificate names the host of the Raft
 * address dialled (HTTPS host name rules), so a member's certificate cannot stand in for another
 * host's.
 *
 * <p>Immutable, thread safe.
 */
public final class RaftTls {
  /** How long a member waits for a joining node's Raft port to show its certificate. */
  static final int PROBE_TIMEOUT_MILLIS = 5_000;

  private final NodeTls tls;

  /** {@code tls} must have a cluster CA ({@link NodeTls#betweenNodes}). */
  public RaftTls(NodeTls tls) {
    if (!tls.betweenNodes()) throw new IllegalArgumentException("the Raft group's TLS needs a cluster CA (--tls-cluster-ca)");
    this.tls = tls;
  }

  /** The Ratis parameters that put the server, admin and client sides of the gRPC transport on mutual TLS. */
  Parameters parameters() {
    GrpcTlsConfig config = new GrpcTlsConfig(tls.peerKeyManager(), tls.peerTrustManager(), true);
    Parameters parameters = new Parameters();
    GrpcConfigKeys.TLS.setConf(parameters, config);
    GrpcConfigKeys.Server.setTlsConf(parameters, config);
    GrpcConfigKeys.Admin.setTlsConf(parameters, config);
    GrpcConfigKeys.Client.setTlsConf(parameters, config);
    return parameters;
  }

  /**
   * Checks, before a member adds a joining node to the map, that its Raft port at {@code
   * raftAddress} answers with a node certificate of the cluster CA that names that host: a node
   * the group could never reach is refused up front, and the map never lists it as joining.
   *
   * @throws IOException with the reason (no answer, no TLS, another CA, another host's name)
   */
  void probe(String raftAddress) throws IOException {
    int colon = raftAddress.lastIndexOf(':');
    String host = raftAddress.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
    int port = Integer.parseInt(raftAddress.substring(colon + 1));
    // The node's context for its peers: its certificate, trusting the cluster CA only.
    try (SSLSocket socket = (SSLSocket) tls.peerHttps().getSocketFactory().createSocket()) {
      socket.connect(new InetSocketAddress(host, port), PROBE_TIMEOUT_MILLIS);
      socket.setSoTimeout(PROBE_TIMEOUT_MILLIS);
      SSLParameters parameters = socket.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host dialled
      parameters.setApplicationProtocols(new String[] {"h2"}); // what a gRPC server expects to negotiate
      socket.setSSLParameters(parameters);
      socket.startHandshake();
    } catch (SSLException e) {
      throw new IOException(certificateReason(e), e);
    }
  }

  private static String certificateReason(SSLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CertificateException) return "its certificate is refused: " + t.getMessage();
    }
    return "no TLS handshake with it: " + e.getMessage();
  }
}
