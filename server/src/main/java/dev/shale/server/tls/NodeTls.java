package dev.shale.server.tls;

import dev.shale.cluster.auth.CertificateIdentity;
import dev.shale.storage.SuppressForbidden;
import io.netty.channel.Channel;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AttributeKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.jspecify.annotations.Nullable;

/**
 * The TLS of a node's port: the SslContext new connections get, reloaded when the files of its
 * {@link TlsFiles} change (docs/operations.md, "Rotating certificates"). With a cluster CA, also
 * the TLS between the nodes (docs/design.md, "TLS between nodes"): the context this node dials its
 * peers with ({@link #peerClient}), and the checks a connection must pass to be a peer's
 * ({@link #peerRefusal}) or, on a port asking for certificates without requiring them, an HTTP
 * client's ({@link #httpClientRefusal}). A reload replaces them all together.
 *
 * <p>{@link #reloadIfChanged} is called about every second (the server schedules it): it compares
 * each file's modification time, size and inode with what it last loaded, and only when one
 * differs reads and checks the files again. A good new pair becomes the context of new connections;
 * connections already open keep the one they shook hands with. A bad new pair (a key that is not
 * the certificate's, an expired certificate, a half-written file) leaves the old context in place
 * and is logged once, when it has stayed the same for two polls: replacing two files is not
 * atomic, and the moment between the key's replacement and the certificate's is not an error.
 *
 * <p>Thread safe: {@link #current} from any event loop; {@link #reloadIfChanged} from one thread at a time.
 */
public final class NodeTls {
  private static final System.Logger LOG = System.getLogger(NodeTls.class.getName());
  /** On every connection of a TLS port: the node's TLS, for /v0/status. */
  public static final AttributeKey<NodeTls> OF_CONNECTION = AttributeKey.valueOf(NodeTls.class, "tls");
  /**
   * On an HTTP connection whose client presented a certificate of the client CA: the token it
   * names ({@link #clientIdentity}), read once after the handshake; unset otherwise.
   */
  public static final AttributeKey<CertificateIdentity> CLIENT_IDENTITY = AttributeKey.valueOf(NodeTls.class, "client-identity");

  private final TlsFiles files;
  private final LongSupplier wallMillis;
  private volatile Loaded loaded;
  // The stamp of files that failed to load at the last poll, and whether that failure was logged.
  private @Nullable List<Object> failedStamp;
  private boolean failureLogged;

  /**
   * The credentials and contexts in force, and the stamp of the files they were read from.
   *
   * @param peerClient the context of connections this node dials to its peers; null without a cluster CA
   * @param clusterTrust the cluster CA, which a peer's certificate must lead to; null without one
   * @param clientTrust the client CA, with a cluster CA only (the port then asks clients for a
   *     certificate without requiring one, and this checks it); null otherwise
   */
  private record Loaded(ServerCredentials credentials, SslContext context, @Nullable SslContext peerClient,
      @Nullable CaTrust clusterTrust, @Nullable CaTrust clientTrust, List<Object> stamp) {}

  private NodeTls(TlsFiles files, LongSupplier wallMillis, Loaded loaded) {
    this.files = files;
    this.wallMillis = wallMillis;
    this.loaded = loaded;
  }

  /**
   * Reads and checks {@code files} at the time {@code wallMillis} tells (the node's wall clock);
   * a node that gets a TlsSetupException here does not start.
   */
  public static NodeTls open(TlsFiles files, LongSupplier wallMillis) throws TlsSetupException {
    return new NodeTls(files, wallMillis, load(files, wallMillis));
  }

  /** The context for a new connection. */
  public SslContext current() {
    return loaded.context;
  }

  /** Whether the connections between nodes run over TLS: the files have a cluster CA. */
  public boolean betweenNodes() {
    return loaded.clusterTrust != null;
  }

  /**
   * The context of a new connection to a peer, of the certificate in force (so a reload reaches
   * new peer connections too); an IllegalStateException without a cluster CA.
   */
  public SslContext peerClient() {
    SslContext context = loaded.peerClient;
    if (context == null) throw new IllegalStateException("no TLS between nodes without a cluster CA (--tls-cluster-ca)");
    return context;
  }

  /**
   * The same credentials for the node's own HTTPS calls to another member (a join asking a
   * member, a node asking for the map after a refusal): the JDK's context behind
   * {@link #peerClient} (the HTTP client checks the host name itself).
   */
  public SSLContext peerHttps() {
    // The JDK's provider (TlsContexts.PROVIDER) makes JdkSslContexts; another engine would need
    // a JDK context of its own made here from the same credentials.
    if (!(peerClient() instanceof JdkSslContext jdk)) {
      throw new IllegalStateException("the peers' TLS context is not the JDK's: " + peerClient().getClass().getName());
    }
    return jdk.context();
  }

  /**
   * The JDK key manager of connections between nodes made outside Netty's contexts (the Raft
   * group's gRPC transport): presents the node's certificate in force at each handshake, so a
   * reload reaches those transports' new connections too. An IllegalStateException without a
   * cluster CA.
   */
  public X509ExtendedKeyManager peerKeyManager() {
    peerClient(); // without a cluster CA: the IllegalStateException
    return new PeerKeyManager(() -> loaded.credentials);
  }

  /**
   * The JDK trust manager of those connections: a node certificate of the cluster CA in force
   * ({@link PeerTrustManager}). An IllegalStateException without a cluster CA.
   */
  public X509ExtendedTrustManager peerTrustManager() {
    peerClient();
    return new PeerTrustManager(() -> Objects.requireNonNull(loaded.clusterTrust, "a cluster CA, kept by every reload"));
  }

  /**
   * Why {@code channel} may not be a peer connection of the member whose host is {@code
   * senderHost}, or null when it may: it must be TLS with a node certificate of the cluster CA
   * that names that host (docs/design.md, "TLS between nodes").
   */
  public @Nullable String peerRefusal(Channel channel, String senderHost) {
    CaTrust cluster = loaded.clusterTrust;
    if (cluster == null) return null;
    X509Certificate[] chain = ConnectionCertificates.of(channel);
    if (chain == null) {
      return "it came in clear, and this node takes peer connections over TLS only (--tls-cluster-ca): "
          + "start every node of the cluster with --tls-cert, --tls-key and --tls-cluster-ca";
    }
    if (chain.length == 0) {
      return "it presented no certificate of a CA this node trusts; a peer presents its node certificate of the cluster CA";
    }
    String subject = chain[0].getSubjectX500Principal().getName();
    try {
      cluster.checkNode(chain);
    } catch (CertificateException e) {
      return "its certificate (" + subject + ") is not a node certificate of the cluster CA: " + ConnectionCertificates.reason(e);
    }
    if (!HostNames.names(chain[0], senderHost)) {
      return "its certificate (" + subject + ") does not name " + senderHost + ", the host of the member it says it is";
    }
    return null;
  }

  /**
   * Why the HTTP client of {@code channel} may not be served, or null when it may. Only a port
   * with both a client CA and a cluster CA decides here (its handshake asks for a certificate
   * without requiring one): a client's certificate of the client CA, or a node's of the cluster
   * CA (the members' own calls), is required. Without a cluster CA the handshake itself required it.
   */
  public @Nullable String httpClientRefusal(Channel channel) {
    CaTrust clients = loaded.clientTrust;
    CaTrust cluster = loaded.clusterTrust;
    if (clients == null || cluster == null) return null;
    X509Certificate[] chain = ConnectionCertificates.of(channel);
    if (chain == null) return null;
    if (chain.length == 0) return "this node serves only clients presenting a certificate of its client CA (--tls-client-ca)";
    try {
      clients.checkClient(chain);
      return null;
    } catch (CertificateException e) {
      try {
        cluster.checkNode(chain);
        return null;
      } catch (CertificateException notNode) {
        return "the client certificate (" + chain[0].getSubjectX500Principal().getName() + ") is not one of this node's client CA: "
            + ConnectionCertificates.reason(e);
      }
    }
  }

  /**
   * The token the client certificate of {@code channel} names, for a node that requires API
   * tokens (docs/design.md, "Client certificates"); null when the connection presented no
   * certificate, or the node has no client CA ({@code --tls-client-ca}: only the client CA makes
   * a certificate a client's credential). Call it once the handshake is done and {@link
   * #httpClientRefusal} let the client in: a certificate here chains to a CA the port trusts.
   */
  public @Nullable CertificateIdentity clientIdentity(Channel channel) {
    Loaded now = loaded;
    if (now.credentials.clientCas().isEmpty()) return null;
    X509Certificate[] chain = ConnectionCertificates.of(channel);
    if (chain == null || chain.length == 0) return null;
    CaTrust clients = now.clientTrust;
    if (clients != null) {
      // A port with a cluster CA as well took the certificate as either CA's: only the client
      // CA's name clients (a node certificate of the cluster CA is a member's own call).
      try {
        clients.checkClient(chain);
      } catch (CertificateException e) {
        return new CertificateIdentity.Unnamed("the certificate (" + chain[0].getSubjectX500Principal().getName()
            + ") is not one of this node's client CA, so it names no token");
      }
    }
    return ClientCertificateNames.of(chain[0]);
  }

  /** The credentials in force. */
  public ServerCredentials credentials() {
    return loaded.credentials;
  }

  /** The certificate in force, for /v0/status: its subject, issuer and validity (no key material). */
  public String statusJson() {
    var certificate = loaded.credentials.certificate();
    return "{\"subject\": \"" + jsonEscape(certificate.getSubjectX500Principal().getName())
        + "\", \"issuer\": \"" + jsonEscape(certificate.getIssuerX500Principal().getName())
        + "\", \"notBefore\": \"" + certificate.getNotBefore().toInstant()
        + "\", \"notAfter\": \"" + certificate.getNotAfter().toInstant()
        + "\", \"clientCertificates\": " + (loaded.credentials.clientCas().isEmpty() ? "\"none\"" : "\"required\"")
        + ", \"betweenNodes\": " + (betweenNodes() ? "\"mutual TLS\"" : "\"none\"") + "}";
  }

  /** Reloads the files if they changed since they were last loaded; true when a new context is in force. */
  public boolean reloadIfChanged() {
    List<Object> stamp;
    try {
      stamp = stamp(files);
    } catch (IOException e) {
      return failed(List.of(String.valueOf(e.getMessage())), "cannot read " + e.getMessage());
    }
    if (stamp.equals(loaded.stamp)) return false;
    try {
      Loaded next = load(files, wallMillis);
      // Read after the load: files replaced while it read are loaded again at the next poll.
      loaded = new Loaded(next.credentials, next.context, next.peerClient, next.clusterTrust, next.clientTrust,
          stamp.equals(next.stamp) ? stamp : List.of());
      failedStamp = null;
      LOG.log(System.Logger.Level.INFO, "TLS: new connections now get the certificate "
          + next.credentials.certificate().getSubjectX500Principal().getName() + ", valid to "
          + next.credentials.certificate().getNotAfter().toInstant() + ", from " + files.certificateChain());
      return true;
    } catch (TlsSetupException e) {
      return failed(stamp, String.valueOf(e.getMessage()));
    }
  }

  private boolean failed(List<Object> stamp, String reason) {
    if (!stamp.equals(failedStamp)) {
      failedStamp = stamp;
      failureLogged = false;
    } else if (!failureLogged) {
      failureLogged = true;
      LOG.log(System.Logger.Level.WARNING, "TLS: keeping the certificate in force ("
          + loaded.credentials.certificate().getSubjectX500Principal().getName() + "): the new files cannot be used: " + reason);
    }
    return false;
  }

  private static Loaded load(TlsFiles files, LongSupplier wallMillis) throws TlsSetupException {
    List<Object> stamp;
    try {
      stamp = stamp(files);
    } catch (IOException e) {
      stamp = List.of(); // the load below names the file it cannot read
    }
    ServerCredentials credentials = ServerCredentials.load(files, Instant.ofEpochMilli(wallMillis.getAsLong()));
    if (credentials.clusterCas().isEmpty()) return new Loaded(credentials, TlsContexts.server(credentials), null, null, null, stamp);
    CaTrust cluster = CaTrust.of(credentials.clusterCas());
    CaTrust clients = credentials.clientCas().isEmpty() ? null : CaTrust.of(credentials.clientCas());
    return new Loaded(credentials, TlsContexts.server(credentials), TlsContexts.peerClient(credentials, cluster), cluster, clients, stamp);
  }

  /** What identifies the files' contents without reading them: per file its mtime, size and inode. */
  @SuppressForbidden(reason = "the operator's TLS files on the real filesystem; the Vfs has no mtime or inode")
  private static List<Object> stamp(TlsFiles files) throws IOException {
    List<Object> stamp = new ArrayList<>();
    for (Path file : new Path[] {files.certificateChain(), files.key(), files.clientCa(), files.clusterCa()}) {
      if (file == null) continue;
      try {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        stamp.add(attributes.lastModifiedTime().toMillis());
        stamp.add(attributes.size());
        stamp.add(Objects.requireNonNullElse(attributes.fileKey(), ""));
      } catch (IOException e) {
        throw new IOException(file + ": " + e.getClass().getSimpleName(), e);
      }
    }
    return List.copyOf(stamp);
  }

  private static String jsonEscape(String text) {
    return text.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
