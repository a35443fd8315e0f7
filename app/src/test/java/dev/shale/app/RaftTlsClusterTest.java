package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.membership.RaftAddress;
import dev.shale.testkit.Await;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Node processes of a TLS cluster (--tls-cert, --tls-key, --tls-cluster-ca, certificates from
 * {@code shale certs}) run the cluster map's Raft group over mutual TLS with the same
 * credentials: the three form their map, a fourth node of the cluster CA joins (its Raft port
 * probed and reached over TLS), and a node whose certificate is another CA's cannot join, the map
 * left as it was; the Raft port presents the node's certificate and drops a connection without
 * one. (RaftTlsTest refuses intruders' proposals, reads and reconfigurations on the Raft port.)
 */
class RaftTlsClusterTest {
  private static final Duration EXIT = Duration.ofSeconds(60);
  private static final List<String> JVM = TestCluster.NODE_JVM;

  @TempDir Path dir;
  private StringWriter err = new StringWriter();

  @Test
  void aTlsClusterFormsTakesAJoinAndRefusesANodeOfAnotherCa() throws Exception {
    Path certs = dir.resolve("certs");
    Path other = dir.resolve("other");
    assertThat(run("certs", "ca", "--dir", certs.toString())).as(err.toString()).isZero();
    assertThat(run("certs", "ca", "--dir", other.toString())).as(err.toString()).isZero();
    for (String name : List.of("n0", "n1", "n2", "fourth")) {
      assertThat(run("certs", "node", "--dir", certs.toString(), "--name", name, "--host", "127.0.0.1")).as(err.toString()).isZero();
    }
    assertThat(run("certs", "node", "--dir", other.toString(), "--name", "stranger", "--host", "127.0.0.1")).as(err.toString()).isZero();
    Path secret = dir.resolve("secret");
    SecretFile.write(secret, TestCluster.SECRET.getBytes(StandardCharsets.UTF_8));
    HttpClient https = HttpClient.newBuilder().sslContext(ClientTls.context(certs.resolve("ca.crt"), null, null))
        .connectTimeout(Duration.ofSeconds(2)).build();
    List<Integer> ports = List.of(TestCluster.nodePort(), TestCluster.nodePort(), TestCluster.nodePort());
    List<String> urls = ports.stream().map(p -> "https://127.0.0.1:" + p).toList();
    List<NodeProcess> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        nodes.add(NodeProcess.start(ports.get(i), dir.resolve("node-" + i), JVM,
            tlsArgs(certs, "n" + i, certs, secret, "--cluster", String.join(",", urls))));
      }
      List<String> members = ports.stream().map(p -> "127.0.0.1:" + p).toList();
      MembershipClusterTest.Topology formed = awaitTopology(https, ports, members);
      // The Raft port speaks TLS with the node's certificate, and takes no connection without one.
      SSLContext anonymous = ClientTls.context(certs.resolve("ca.crt"), null, null);
      try (SSLSocket socket = (SSLSocket) anonymous.getSocketFactory().createSocket("127.0.0.1", RaftAddress.defaultPort(ports.get(0)))) {
        socket.setSoTimeout((int) EXIT.toMillis());
        socket.startHandshake();
        assertThat(((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName()).isEqualTo("CN=n0");
        assertThatThrownBy(() -> {
          socket.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          socket.getOutputStream().flush();
          if (socket.getInputStream().read() == -1) throw new IOException("closed");
        }).as("a connection without a client certificate").isInstanceOf(IOException.class);
      }

      int strangerPort = TestCluster.nodePort();
      try (NodeProcess stranger = NodeProcess.start(strangerPort, dir.resolve("stranger"), JVM, tlsArgs(other, "stranger", other, secret,
          "--join", urls.get(1), "--raft-port", String.valueOf(FreePort.find())))) {
        assertThat(stranger.awaitExit(EXIT)).as(stranger.log()).isNotZero();
        assertThat(stranger.log()).contains("shale: --join");
      }
      assertThat(awaitTopology(https, ports, members)).as("the map, untouched").isEqualTo(formed);

      int fourthPort = TestCluster.nodePort();
      nodes.add(NodeProcess.start(fourthPort, dir.resolve("fourth"), JVM, tlsArgs(certs, "fourth", certs, secret,
          "--join", urls.get(1), "--raft-port", String.valueOf(FreePort.find()))));
      List<Integer> four = List.of(ports.get(0), ports.get(1), ports.get(2), fourthPort);
      List<String> fourMembers = four.stream().map(p -> "127.0.0.1:" + p).toList();
      assertThat(awaitTopology(https, four, fourMembers).version()).isGreaterThan(formed.version());
    } finally {
      for (NodeProcess node : nodes) node.close();
    }
  }

  /**
   * Waits until every node on {@code ports} reports, over TLS, the same map of {@code members}
   * (host:port; the map lists them by URL), all normal.
   */
  private static MembershipClusterTest.Topology awaitTopology(HttpClient https, List<Integer> ports, List<String> members) {
    List<String> expected = members.stream().sorted().toList();
    MembershipClusterTest.Topology[] agreed = new MembershipClusterTest.Topology[1];
    List<MembershipClusterTest.Topology> seen = new ArrayList<>();
    try {
      Await.until("nodes " + ports + " to agree on a map of " + members + ", all normal", TestCluster.READY, () -> {
        seen.clear();
        for (int port : ports) seen.add(topology(https, port));
        MembershipClusterTest.Topology first = seen.getFirst();
        // Version 0 is the map of --cluster before the Raft group commits its bootstrap (version 1
        // on): a map read then changes version with no change of members, which "untouched" below
        // took for the refused join's doing once.
        boolean same = first != null && first.version() > 0 && seen.stream().allMatch(first::equals)
            && first.members().stream().map(url -> url.substring(url.indexOf("//") + 2)).sorted().toList().equals(expected)
            && first.states().stream().allMatch("normal"::equals);
        if (same) agreed[0] = first;
        return same;
      });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last seen: " + seen, e);
    }
    return Objects.requireNonNull(agreed[0]);
  }

  private static MembershipClusterTest.Topology topology(HttpClient https, int port) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/v0/status")).timeout(Duration.ofSeconds(10)).build();
    try {
      HttpResponse<String> response = https.send(request, HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? MembershipClusterTest.topologyOf(response.body()) : null;
    } catch (IOException e) {
      return null; // not serving yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static List<String> tlsArgs(Path certs, String name, Path caDir, Path secret, String... more) {
    List<String> args = new ArrayList<>(List.of("--cluster-secret-file", secret.toString(),
        "--tls-cert", certs.resolve("node." + name + ".crt").toString(), "--tls-key", certs.resolve("node." + name + ".key").toString(),
        "--tls-cluster-ca", caDir.resolve("ca.crt").toString()));
    args.addAll(List.of(more));
    return args;
  }

  private int run(String... args) {
    err = new StringWriter();
    CommandLine commandLine = Main.commandLine(new ByteArrayOutputStream(), new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
    return commandLine.execute(args);
  }
}
