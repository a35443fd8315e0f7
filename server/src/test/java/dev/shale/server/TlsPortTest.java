package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.server.tls.CertificateAuthority;
import dev.shale.server.tls.IssuedCertificate;
import dev.shale.server.tls.NodeTls;
import dev.shale.server.tls.TlsFiles;
import dev.shale.server.tls.TlsSetupException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on the node's port: real handshakes with a real server on a free loopback port. The
 * certificates are made now, valid around now (the node checks them against its clock).
 */
class TlsPortTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final Instant NOW = Instant.now();
  private static final Instant FROM = NOW.minus(Duration.ofHours(1));
  private static final Instant TO = NOW.plus(Duration.ofDays(30));

  @TempDir Path dir;
  final CertificateAuthority ca = CertificateAuthority.create("test CA", FROM, NOW.plus(Duration.ofDays(365)));
  final CertificateAuthority otherCa = CertificateAuthority.create("test CA", FROM, NOW.plus(Duration.ofDays(365)));

  @Test
  void aClientThatTrustsTheCaIsServedAndTheStatusShowsTheCertificate() throws Exception {
    try (Node node = start(issueNode("n1"), null)) {
      HttpClient client = client(trusting(ca.certificate(), null));
      assertThat(send(client, node, "PUT", "/v0/entity?id=k", "v").statusCode()).isEqualTo(201);
      HttpResponse<String> status = send(client, node, "GET", "/v0/status", null);
      assertThat(status.statusCode()).isEqualTo(200);
      assertThat(status.body()).contains("\"tls\": {\"subject\": \"CN=n1\"", "\"notAfter\": \"" + TO.truncatedTo(java.time.temporal.ChronoUnit.SECONDS))
          .doesNotContain("PRIVATE", "BEGIN");
    }
  }

  @Test
  void untrustedClientsAndPlaintextAreRefusedAndTheNodeServesTheNext() throws Exception {
    try (Node node = start(issueNode("n1"), null)) {
      // The JDK's default trust store does not have our CA; nor does a client trusting another.
      assertThatThrownBy(() -> send(client(SSLContext.getDefault()), node, "GET", "/v0/status", null))
          .hasRootCauseInstanceOf(java.security.cert.CertPathBuilderException.class);
      assertThatThrownBy(() -> send(client(trusting(otherCa.certificate(), null)), node, "GET", "/v0/status", null))
          .isInstanceOf(SSLHandshakeException.class);

      assertThat(raw(node, "GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n"))
          .isEqualTo("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
              + "Content-Length: 46\r\n\r\nthis port speaks TLS only: use https:// URLs\r\n");
      assertThat(raw(node, "\u0089SHALE garbage")).as("a peer preface in clear: closed, nothing answered").isEmpty();

      assertThat(send(client(trusting(ca.certificate(), null)), node, "GET", "/v0/status", null).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void withAClientCaOnlyClientsWithAValidCertificateOfItAreServed() throws Exception {
    ca.writeTo(dir.resolve("ca.crt"), dir.resolve("ca.key"));
    try (Node node = start(issueNode("n1"), dir.resolve("ca.crt"))) {
      IssuedCertificate alice = ca.issueClient("alice", FROM, TO);
      assertThat(send(client(trusting(ca.certificate(), alice)), node, "GET", "/v0/status", null).statusCode()).isEqualTo(200);

      IssuedCertificate stranger = otherCa.issueClient("alice", FROM, TO);
      IssuedCertificate expired = ca.issueClient("alice", NOW.minus(Duration.ofDays(10)), NOW.minus(Duration.ofDays(1)));
      for (IssuedCertificate refused : new IssuedCertificate[] {null, stranger, expired}) {
        assertThatThrownBy(() -> send(client(trusting(ca.certificate(), refused)), node, "GET", "/v0/status", null))
            .as("client certificate %s", refused == null ? "none" : refused.certificate().getSubjectX500Principal())
            .isInstanceOf(IOException.class);
      }
      assertThat(send(client(trusting(ca.certificate(), alice)), node, "GET", "/v0/status", null).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void unusableFilesRefuseTheStartWithOneLineNamingTheFile() throws Exception {
    TlsFiles good = write(ca.issueNode("n1", List.of("127.0.0.1"), FROM, TO), "good");
    TlsFiles other = write(ca.issueNode("n2", List.of("127.0.0.1"), FROM, TO), "other");
    TlsFiles expired = write(ca.issueNode("n1", List.of("127.0.0.1"), NOW.minus(Duration.ofDays(10)), NOW.minus(Duration.ofDays(1))), "expired");
    TlsFiles early = write(ca.issueNode("n1", List.of("127.0.0.1"), NOW.plus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(10))), "early");
    Files.writeString(dir.resolve("junk.pem"), "junk\n");

    assertRefused(new TlsFiles(good.certificateChain(), other.key(), null), "is not the private key of the certificate in");
    assertRefused(expired, "is expired since");
    assertRefused(early, "not valid before");
    assertRefused(new TlsFiles(dir.resolve("missing.crt"), good.key(), null), "missing.crt");
    assertRefused(new TlsFiles(dir.resolve("junk.pem"), good.key(), null), "junk.pem");
    assertRefused(new TlsFiles(good.certificateChain(), dir.resolve("junk.pem"), null), "junk.pem");
    assertRefused(new TlsFiles(good.certificateChain(), good.key(), dir.resolve("junk.pem")), "junk.pem");
  }

  @Test
  void aReplacedCertificateReachesNewConnectionsWithoutFailingARequest() throws Exception {
    TlsFiles files = write(ca.issueNode("first", List.of("127.0.0.1"), FROM, TO), "node");
    try (Node node = start(files, null); LogCapture log = LogCapture.of(NodeTls.class.getName())) {
      SSLContext trusting = trusting(ca.certificate(), null);
      HttpClient client = client(trusting);
      AtomicInteger requests = new AtomicInteger();
      AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
      AtomicInteger stop = new AtomicInteger();
      Thread load = Thread.ofPlatform().start(() -> {
        try {
          while (stop.get() == 0) {
            int i = requests.incrementAndGet();
            int status = send(client, node, "PUT", "/v0/entity?id=k" + (i % 16), "v" + i).statusCode();
            if (status != 201) throw new AssertionError("PUT " + i + " got " + status);
            // A new client now and then: a new connection, which may shake hands with either certificate.
            if (i % 8 == 0 && send(client(trusting), node, "GET", "/v0/status", null).statusCode() != 200) {
              throw new AssertionError("a new connection's GET failed");
            }
          }
        } catch (Throwable e) {
          failure.set(e);
        }
      });
      try {
        waitFor(() -> requests.get() > 20, "requests before the rotation");
        write(ca.issueNode("second", List.of("127.0.0.1"), FROM, TO), "node");
        waitFor(() -> servedSubject(node, trusting).equals("CN=second"), "a new connection to see the new certificate");
        int seen = requests.get();
        waitFor(() -> requests.get() > seen + 20, "requests after the rotation");
      } finally {
        stop.set(1);
        load.join(TIMEOUT.toMillis());
      }
      assertThat(failure.get()).as("a request failed during the rotation").isNull();

      // A bad pair (another certificate's key): the old one stays, and says so once.
      Files.copy(write(ca.issueNode("third", List.of("127.0.0.1"), FROM, TO), "third").key(), files.key(),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      waitFor(() -> log.lines().stream().anyMatch(l -> l.startsWith("WARNING TLS: keeping the certificate in force (CN=second)")),
          "the bad pair's warning");
      assertThat(servedSubject(node, trusting)).isEqualTo("CN=second");
      assertThat(send(client(trusting), node, "GET", "/v0/status", null).statusCode()).isEqualTo(200);
      assertThat(log.lines().stream().filter(l -> l.startsWith("WARNING")).count()).isEqualTo(1);
    }
  }

  // ---- helpers

  private void assertRefused(TlsFiles files, String reason) {
    assertThatThrownBy(() -> NodeTls.open(files, System::currentTimeMillis))
        .isInstanceOf(TlsSetupException.class).hasMessageContaining(reason).message().doesNotContain("\n");
  }

  private TlsFiles issueNode(String name) throws IOException {
    return write(ca.issueNode(name, List.of("127.0.0.1", "localhost"), FROM, TO), name);
  }

  private TlsFiles write(IssuedCertificate issued, String name) throws IOException {
    TlsFiles files = new TlsFiles(dir.resolve(name + ".crt"), dir.resolve(name + ".key"), null);
    issued.writeTo(files.certificateChain(), files.key());
    return files;
  }

  private record Node(Engine engine, ShaleServer server) implements AutoCloseable {
    @Override
    public void close() {
      server.close();
      engine.close();
    }
  }

  private Node start(TlsFiles files, @Nullable Path clientCa) throws TlsSetupException {
    NodeTls tls = NodeTls.open(new TlsFiles(files.certificateChain(), files.key(), clientCa), System::currentTimeMillis);
    Engine engine = Engine.open(dir.resolve("data"), EngineOptions.defaults());
    try {
      return new Node(engine, ShaleServer.start(engine, Env.real(), TestServer.options(), null, MissedWrites.NONE, NodeAdmin.NONE, tls));
    } catch (RuntimeException e) {
      engine.close();
      throw e;
    }
  }

  /** An SSLContext trusting {@code trusted} only, presenting {@code identity} when asked for a client certificate. */
  static SSLContext trusting(X509Certificate trusted, @Nullable IssuedCertificate identity) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", trusted);
    TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trust);
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    if (identity != null) {
      keys.setKeyEntry("me", identity.key(), new char[0], new Certificate[] {identity.certificate(), identity.issuer()});
    }
    keyManagers.init(keys, new char[0]);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
    return context;
  }

  private static HttpClient client(SSLContext context) {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).sslContext(context).build();
  }

  private static HttpResponse<String> send(HttpClient client, Node node, String method, String target, @Nullable String body)
      throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + node.server.port() + target))
        .timeout(TIMEOUT)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .build();
    return client.send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** The subject of the certificate a new connection is served. */
  private static String servedSubject(Node node, SSLContext context) {
    try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", node.server.port())) {
      socket.setSoTimeout((int) TIMEOUT.toMillis());
      socket.startHandshake();
      return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    } catch (IOException e) {
      throw new AssertionError("handshake failed", e);
    }
  }

  /** Sends {@code text} in clear and returns everything read until the node closes. */
  private static String raw(Node node, String text) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", node.server.port())) {
      socket.setSoTimeout((int) TIMEOUT.toMillis());
      OutputStream out = socket.getOutputStream();
      out.write(text.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  private static void waitFor(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
      Thread.sleep(20);
    }
  }
}
