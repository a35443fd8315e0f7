package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.server.tls.CertificateAuthority;
import dev.shale.server.tls.IssuedCertificate;
import dev.shale.server.tls.NodeTls;
import dev.shale.server.tls.PemFiles;
import dev.shale.server.tls.TlsFiles;
import dev.shale.server.tls.TlsSetupException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.testkit.Await;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.PeerWire;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS between the nodes of a cluster (docs/design.md, "TLS between nodes"): real servers on free
 * loopback ports, real handshakes, certificates made now by two CAs. A cluster under one CA stores,
 * replicates and scans across nodes; a node of another CA, a certificate that does not name its
 * member's host, a clear or uncertified connection posing as a peer, and a clear node among TLS
 * ones are refused, each named in the log; a reloaded cluster CA reaches new peer connections.
 */
class PeerTlsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final byte[] SECRET = "peer-tls-test-secret".getBytes(StandardCharsets.UTF_8);
  private static final Instant NOW = Instant.now();
  private static final Instant FROM = NOW.minus(Duration.ofHours(1));
  private static final Instant TO = NOW.plus(Duration.ofDays(30));
  private static final List<String> LOOPBACK = List.of("127.0.0.1");

  @TempDir Path dir;
  final CertificateAuthority ca = CertificateAuthority.create("cluster CA", FROM, TO);
  final CertificateAuthority otherCa = CertificateAuthority.create("other CA", FROM, TO);

  @Test
  void aTlsClusterStoresAndReadsAtQuorumReplicatesAndScansAcrossNodes() throws Exception {
    try (Nodes nodes = Nodes.start(this, 3, i -> tls("n" + i, ca, LOOPBACK, caFile(ca)))) {
      assertThat(nodes.put(0, "k", "value", "").statusCode()).isEqualTo(201);
      Await.until("k on every replica", TIMEOUT, () -> nodes.allHave("k"));
      for (int i = 1; i < 3; i++) {
        HttpResponse<String> read = nodes.get(i, "k", "");
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).isEqualTo("value");
      }
      // Each on its first replica only: a cluster scan from any node streams them from the others.
      for (int k = 0; k < 6; k++) assertThat(nodes.put(k % 3, "s-" + k, "v" + k, "&ack=1&from=1").statusCode()).isEqualTo(201);
      assertThat(nodes.holders("s-0") + nodes.holders("s-1")).as("stored once each").isEqualTo(2);
      HttpResponse<String> scan = nodes.send(1, "GET", "/v0/entities?start=s-&end=s-9&scope=cluster&from=1&ack=1", null);
      assertThat(scan.statusCode()).isEqualTo(200);
      for (int k = 0; k < 6; k++) assertThat(scan.body()).contains("s-" + k).contains("v" + k);
    }
  }

  @Test
  void aNodeWhoseCertificateIsOfAnotherCaCannotReplicateNorBeReachedAsAPeer() throws Exception {
    try (LogCapture dials = LogCapture.of("dev.shale.server.peer.ClientHandshake");
        Nodes nodes = Nodes.start(this, 3, i -> i < 2 ? tls("n" + i, ca, LOOPBACK, caFile(ca)) : tls("n" + i, otherCa, LOOPBACK, caFile(otherCa)))) {
      assertThat(nodes.put(0, "shared", "v", "&ack=3").statusCode()).isEqualTo(504);
      assertThat(nodes.put(2, "stranger", "v", "&ack=3").statusCode()).isEqualTo(504);
      assertThat(nodes.put(0, "pair", "v", "&ack=2").statusCode()).as("the two of one CA still replicate").isEqualTo(201);
      Await.until("pair on node 1", TIMEOUT, () -> nodes.has(1, "pair"));
      assertThat(nodes.has(2, "shared")).isFalse();
      assertThat(nodes.has(2, "pair")).isFalse();
      assertThat(nodes.has(0, "stranger") || nodes.has(1, "stranger")).isFalse();
      String stranger = "http://127.0.0.1:" + nodes.ports.get(2);
      Await.until("the log naming the node of the other CA", TIMEOUT, () -> dials.lines().stream()
          .anyMatch(l -> l.startsWith("SEVERE no peer connection to " + stranger + ": the certificate of " + stranger
              + " is not one of the cluster CA (--tls-cluster-ca)")));
    }
  }

  @Test
  void aPeerCertificateThatDoesNotNameTheMembersHostIsRefused() throws Exception {
    try (LogCapture dials = LogCapture.of("dev.shale.server.peer.ClientHandshake");
        LogCapture accepts = LogCapture.of("dev.shale.server.peer.ServerHandshake");
        Nodes nodes = Nodes.start(this, 3, i -> tls("n" + i, ca, i < 2 ? LOOPBACK : List.of("localhost"), caFile(ca)))) {
      String misnamed = "http://127.0.0.1:" + nodes.ports.get(2);
      assertThat(nodes.put(0, "k", "v", "&ack=3").statusCode()).isEqualTo(504);
      assertThat(nodes.has(2, "k")).isFalse();
      Await.until("the dialing node's line", TIMEOUT, () -> dials.lines().stream()
          .anyMatch(l -> l.contains("no peer connection to " + misnamed + ": the certificate of " + misnamed + " does not name 127.0.0.1")));
      // Its own dials are refused by the others: its certificate does not name the member it says it is.
      Await.until("the accepting node's line", TIMEOUT, () -> accepts.lines().stream()
          .anyMatch(l -> l.contains("refusing a peer connection from 127.0.0.1:" + nodes.ports.get(2))
              && l.contains("does not name 127.0.0.1, the host of the member it says it is")));
    }
  }

  @Test
  void aClearOrUncertifiedConnectionPosingAsAPeerIsRefusedAndTheNodeServesOn() throws Exception {
    try (Nodes nodes = Nodes.start(this, 2, i -> tls("n" + i, ca, LOOPBACK, caFile(ca)))) {
      int port = nodes.ports.get(0);
      String self = "127.0.0.1:" + port;
      String peer = "127.0.0.1:" + nodes.ports.get(1);
      assertThat(refusal(() -> PeerWire.open(port, SECRET, peer, self))).contains("it came in clear");
      assertThat(refusal(() -> PeerWire.open(tlsSocket(port, null), SECRET, peer, self))).contains("it presented no certificate");
      IssuedCertificate client = ca.issueClient("alice", FROM, TO);
      assertThat(refusal(() -> PeerWire.open(tlsSocket(port, client), SECRET, peer, self)))
          .contains("is not a node certificate of the cluster CA").contains("serverAuth");
      IssuedCertificate misnamed = ca.issueNode("n1", List.of("localhost"), FROM, TO);
      assertThat(refusal(() -> PeerWire.open(tlsSocket(port, misnamed), SECRET, peer, self))).contains("does not name 127.0.0.1");
      IssuedCertificate stranger = otherCa.issueNode("n1", LOOPBACK, FROM, TO);
      assertThatThrownBy(() -> PeerWire.open(tlsSocket(port, stranger), SECRET, peer, self).close())
          .as("a certificate of another CA fails the TLS handshake itself").isInstanceOf(IOException.class);
      // A node certificate of the cluster CA naming the host passes (the secret is still proved).
      try (PeerWire genuine = PeerWire.open(tlsSocket(port, ca.issueNode("n1", LOOPBACK, FROM, TO)), SECRET, peer, self)) {
        assertThat(genuine.read("absent".getBytes(StandardCharsets.UTF_8))).isInstanceOf(PeerWire.Reply.Absent.class);
      }

      assertThat(nodes.put(0, "after", "v", "&ack=2").statusCode()).isEqualTo(201);
      assertThat(nodes.has(1, "after")).isTrue();
      assertThat(nodes.get(1, "after", "").body()).isEqualTo("v");
    }
  }

  @Test
  void aClusterMixingTlsAndClearNodesSaysSoOnBothSides() throws Exception {
    try (LogCapture dials = LogCapture.of("dev.shale.server.peer.ClientHandshake");
        LogCapture clearPort = LogCapture.of("dev.shale.server.peer.PortSniffer");
        Nodes nodes = Nodes.start(this, 2, i -> i == 0 ? tls("n0", ca, LOOPBACK, caFile(ca)) : null)) {
      String tlsNode = "http://127.0.0.1:" + nodes.ports.get(0);
      String clearNode = "http://127.0.0.1:" + nodes.ports.get(1);
      assertThat(nodes.put(0, "from-tls", "v", "&ack=2").statusCode()).isEqualTo(504);
      assertThat(nodes.put(1, "from-clear", "v", "&ack=2").statusCode()).isEqualTo(504);
      assertThat(nodes.has(1, "from-tls")).isFalse();
      assertThat(nodes.has(0, "from-clear")).isFalse();
      Await.until("the TLS node's line", TIMEOUT, () -> dials.lines().stream()
          .anyMatch(l -> l.contains("no peer connection to " + clearNode + ": " + clearNode + " does not speak TLS")));
      Await.until("the clear node's line", TIMEOUT, () -> dials.lines().stream()
          .anyMatch(l -> l.contains("no peer connection to " + tlsNode + ": " + tlsNode + " refused the connection: it came in clear")));
      Await.until("the clear port's line", TIMEOUT, () -> clearPort.lines().stream()
          .anyMatch(l -> l.startsWith("WARNING a TLS handshake from /127.0.0.1:") && l.contains("on this node's plaintext port")));
    }
  }

  @Test
  void aReloadedClusterCaReachesNewPeerConnections() throws Exception {
    // Node 1's certificate is of a second CA, which node 1 trusts beside the first; node 0 trusts
    // the first only, until its cluster CA file holds both (a CA rotation's middle step).
    Path clusterCaOfNode0 = dir.resolve("n0-cluster-ca.crt");
    PemFiles.writeCertificates(clusterCaOfNode0, List.of(ca.certificate()));
    Path both = dir.resolve("both-cas.crt");
    PemFiles.writeCertificates(both, List.of(ca.certificate(), otherCa.certificate()));
    try (Nodes nodes = Nodes.start(this, 2, i -> i == 0 ? tls("n0", ca, LOOPBACK, clusterCaOfNode0) : tls("n1", otherCa, LOOPBACK, both))) {
      assertThat(nodes.put(0, "before", "v", "&ack=2").statusCode()).isEqualTo(504);
      PemFiles.writeCertificates(clusterCaOfNode0, List.of(ca.certificate(), otherCa.certificate()));
      Await.until("a write through node 0 reaching node 1", TIMEOUT, () -> nodes.put(0, "after", "v", "&ack=2").statusCode() == 201);
      assertThat(nodes.has(1, "after")).isTrue();
    }
  }

  @Test
  void withAClientCaTheHttpClientsOfAClusterNodeNeedItsCertificateOrANodes() throws Exception {
    // The port takes peers too, so its handshake asks for a certificate without requiring one:
    // the client CA's requirement is checked after it, with a one-line 403.
    Path clientCa = caFile(otherCa);
    try (Nodes nodes = Nodes.start(this, 2, i -> tls("n" + i, ca, LOOPBACK, caFile(ca), clientCa))) {
      String status = "https://127.0.0.1:" + nodes.ports.get(0) + "/v0/status";
      HttpResponse<String> none = get(status, null);
      assertThat(none.statusCode()).isEqualTo(403);
      assertThat(none.body()).isEqualTo("this node serves only clients presenting a certificate of its client CA (--tls-client-ca)\r\n");
      HttpResponse<String> clusterClient = get(status, ca.issueClient("mallory", FROM, TO));
      assertThat(clusterClient.statusCode()).isEqualTo(403);
      assertThat(clusterClient.body()).startsWith("the client certificate (CN=mallory) is not one of this node's client CA: ");
      assertThat(get(status, otherCa.issueClient("alice", FROM, TO)).statusCode()).isEqualTo(200);
      assertThat(get(status, ca.issueNode("n1", LOOPBACK, FROM, TO)).statusCode()).as("a member's own calls").isEqualTo(200);
      // And the members are peers all the same.
      try (PeerWire peer = PeerWire.open(tlsSocket(nodes.ports.get(0), ca.issueNode("n1", LOOPBACK, FROM, TO)), SECRET,
          "127.0.0.1:" + nodes.ports.get(1), "127.0.0.1:" + nodes.ports.get(0))) {
        assertThat(peer.read("k".getBytes(StandardCharsets.UTF_8))).isInstanceOf(PeerWire.Reply.Absent.class);
      }
    }
  }

  @Test
  void aNodeCertificateThatIsNotOfTheClusterCaIsRefusedAtOpen() throws Exception {
    TlsFiles stranger = write(otherCa.issueNode("n0", LOOPBACK, FROM, TO), "stranger");
    assertThatThrownBy(() -> NodeTls.open(new TlsFiles(stranger.certificateChain(), stranger.key(), null, caFile(ca)), System::currentTimeMillis))
        .isInstanceOf(TlsSetupException.class)
        .hasMessageContaining("is not a node certificate of the cluster CA in " + caFile(ca))
        .message().doesNotContain("\n");
    TlsFiles client = write(ca.issueClient("alice", FROM, TO), "alice");
    assertThatThrownBy(() -> NodeTls.open(new TlsFiles(client.certificateChain(), client.key(), null, caFile(ca)), System::currentTimeMillis))
        .isInstanceOf(TlsSetupException.class)
        .hasMessageContaining("is not a node certificate (its extended key usage has no serverAuth)");
    // A TLS port without a cluster CA takes no peers: they would come in clear past it.
    NodeTls noClusterCa = tls("n0", ca, LOOPBACK, null);
    int port = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + port, "http://127.0.0.1:" + FreePort.find());
    Cluster cluster = new Cluster(new Placement(Topology.fromUrls(urls, "127.0.0.1", port)), InternalAuth.withSecret(SECRET, Env.real()::wallMillis), 2_000, 16);
    try (Engine engine = Engine.open(dir.resolve("alone"), EngineOptions.defaults())) {
      assertThatThrownBy(() -> ShaleServer.start(engine, Env.real(), TestServer.options().withPort(port), cluster, MissedWrites.NONE, NodeAdmin.NONE, noClusterCa))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--tls-cluster-ca");
    }
  }

  // ---- helpers

  private interface PeerOpen {
    PeerWire open() throws IOException;
  }

  /** The reason a node gave for refusing the peer connection {@code open} makes. */
  private static String refusal(PeerOpen open) {
    try (PeerWire wire = open.open()) {
      throw new AssertionError("the node took the connection as a peer's: " + wire);
    } catch (PeerWire.Refused refused) {
      return String.valueOf(refused.reason());
    } catch (IOException e) {
      throw new AssertionError("expected a REFUSED frame, got " + e, e);
    }
  }

  private Path caFile(CertificateAuthority authority) {
    Path file = dir.resolve(authority.certificate().getSubjectX500Principal().getName().replaceAll("\\W", "_") + ".crt");
    try {
      if (!java.nio.file.Files.exists(file)) PemFiles.writeCertificates(file, List.of(authority.certificate()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return file;
  }

  private NodeTls tls(String name, CertificateAuthority issuer, List<String> names, @Nullable Path clusterCa) {
    return tls(name, issuer, names, clusterCa, null);
  }

  private NodeTls tls(String name, CertificateAuthority issuer, List<String> names, @Nullable Path clusterCa, @Nullable Path clientCa) {
    try {
      TlsFiles files = write(issuer.issueNode(name, names, FROM, TO), name);
      return NodeTls.open(new TlsFiles(files.certificateChain(), files.key(), clientCa, clusterCa), System::currentTimeMillis);
    } catch (IOException | TlsSetupException e) {
      throw new AssertionError(e);
    }
  }

  private TlsFiles write(IssuedCertificate issued, String name) throws IOException {
    TlsFiles files = new TlsFiles(dir.resolve(name + ".crt"), dir.resolve(name + ".key"), null);
    issued.writeTo(files.certificateChain(), files.key());
    return files;
  }

  private HttpResponse<String> get(String url, @Nullable IssuedCertificate certificate) throws IOException, InterruptedException {
    try (HttpClient http = HttpClient.newBuilder().sslContext(context(certificate)).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  /** A TLS connection to {@code port} trusting both CAs, presenting {@code certificate} (null: none). */
  private SSLSocket tlsSocket(int port, @Nullable IssuedCertificate certificate) throws IOException {
    SSLSocket socket = (SSLSocket) context(certificate).getSocketFactory().createSocket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    socket.setSoTimeout(15_000);
    socket.startHandshake();
    return socket;
  }

  private SSLContext context(@Nullable IssuedCertificate certificate) {
    try {
      KeyStore trusted = KeyStore.getInstance("PKCS12");
      trusted.load(null, null);
      trusted.setCertificateEntry("ca", ca.certificate());
      trusted.setCertificateEntry("other", otherCa.certificate());
      TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
      trust.init(trusted);
      KeyStore identity = KeyStore.getInstance("PKCS12");
      identity.load(null, null);
      if (certificate != null) {
        identity.setKeyEntry("me", certificate.key(), new char[0], new X509Certificate[] {certificate.certificate(), certificate.issuer()});
      }
      KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(identity, new char[0]);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new AssertionError(e);
    }
  }

  /** Servers of one fixed cluster on loopback, each with its own TLS (or none), and an HTTPS client trusting both CAs. */
  private static final class Nodes implements AutoCloseable {
    final List<Integer> ports = new ArrayList<>();
    final List<Engine> engines = new ArrayList<>();
    final List<ShaleServer> servers = new ArrayList<>();
    final List<Boolean> secure = new ArrayList<>();
    private final HttpClient http;

    private Nodes(HttpClient http) {
      this.http = http;
    }

    static Nodes start(PeerTlsTest test, int size, IntFunction<@Nullable NodeTls> tls) {
      Nodes nodes = new Nodes(HttpClient.newBuilder().sslContext(test.context(null)).connectTimeout(Duration.ofSeconds(5)).build());
      for (int i = 0; i < size; i++) nodes.ports.add(FreePort.find());
      List<String> urls = nodes.ports.stream().map(p -> "http://127.0.0.1:" + p).toList();
      try {
        for (int i = 0; i < size; i++) {
          NodeTls nodeTls = tls.apply(i);
          int port = nodes.ports.get(i);
          Cluster cluster = new Cluster(new Placement(Topology.fromUrls(urls, "127.0.0.1", port)), InternalAuth.withSecret(SECRET, Env.real()::wallMillis), 2_000, 16);
          Engine engine = Engine.open(test.dir.resolve("node-" + i), EngineOptions.defaults());
          nodes.engines.add(engine);
          nodes.servers.add(ShaleServer.start(engine, Env.real(), TestServer.options().withPort(port), cluster, MissedWrites.NONE, NodeAdmin.NONE, nodeTls));
          nodes.secure.add(nodeTls != null);
        }
      } catch (RuntimeException e) {
        nodes.close();
        throw e;
      }
      return nodes;
    }

    HttpResponse<String> put(int i, String id, String value, String query) {
      return send(i, "PUT", "/v0/entity?id=" + id + query, value);
    }

    HttpResponse<String> get(int i, String id, String query) {
      return send(i, "GET", "/v0/entity?id=" + id + query, null);
    }

    HttpResponse<String> send(int i, String method, String target, @Nullable String body) {
      URI uri = URI.create((secure.get(i) ? "https" : "http") + "://127.0.0.1:" + ports.get(i) + target);
      HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT)
          .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build();
      try {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }

    boolean has(int i, String id) {
      return engines.get(i).get(id.getBytes(StandardCharsets.UTF_8)) != null;
    }

    boolean allHave(String id) {
      return holders(id) == engines.size();
    }

    int holders(String id) {
      int n = 0;
      for (int i = 0; i < engines.size(); i++) if (has(i, id)) n++;
      return n;
    }

    @Override
    public void close() {
      http.close();
      for (ShaleServer server : servers) server.close();
      for (Engine engine : engines) engine.close();
    }
  }
}
