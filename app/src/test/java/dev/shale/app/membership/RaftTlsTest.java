package dev.shale.app.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import dev.shale.cluster.membership.MemberState;
import dev.shale.cluster.membership.RaftAddress;
import dev.shale.cluster.membership.TopologyChange;
import dev.shale.cluster.membership.TopologyChangeCodec;
import dev.shale.cluster.membership.TopologyChangeRefused;
import dev.shale.cluster.membership.TopologyListener;
import dev.shale.server.tls.CertificateAuthority;
import dev.shale.server.tls.IssuedCertificate;
import dev.shale.server.tls.NodeTls;
import dev.shale.server.tls.TlsFiles;
import dev.shale.server.tls.TlsSetupException;
import dev.shale.testkit.Await;
import dev.shale.testkit.FreePort;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster map's Raft group over mutual TLS, with real Ratis servers on loopback: it forms
 * and changes its map with node certificates of the cluster CA, and nobody without one (no TLS,
 * another CA's certificate, a client certificate of the same CA, raw bytes) proposes, reads,
 * reconfigures or joins. The TLS is the node's own ({@link NodeTls}, as {@code shale server}
 * opens it from --tls-cert, --tls-key and --tls-cluster-ca), and a renewed certificate reaches the
 * Raft port's new connections without a restart.
 */
class RaftTlsTest {
  private static final Duration AGREED = Duration.ofSeconds(60);
  private static final Instant NOT_BEFORE = Instant.now().minus(1, ChronoUnit.HOURS);
  private static final Instant NOT_AFTER = Instant.now().plus(1, ChronoUnit.DAYS);

  @TempDir Path dir;

  private final CertificateAuthority clusterCa = CertificateAuthority.create("shale test cluster CA", NOT_BEFORE, NOT_AFTER);
  private final CertificateAuthority strangerCa = CertificateAuthority.create("another CA", NOT_BEFORE, NOT_AFTER);
  private final List<RaftMembership> started = new ArrayList<>();
  private final List<NodeTls> tlsOfStarted = new ArrayList<>();
  private final List<Member> members = new ArrayList<>();

  @BeforeEach
  void startThreeMembers() throws IOException {
    for (int i = 0; i < 3; i++) {
      NodeAddress address = new NodeAddress("127.0.0.1", FreePort.find());
      members.add(new Member(address, RaftAddress.of("127.0.0.1", FreePort.find()), MemberState.NORMAL, ""));
    }
    for (Member member : members) {
      start(member.address(), member.raftAddress(), new RaftMembership.Start.Bootstrap(members, 3), nodeTls(clusterCa, "n"));
    }
    for (RaftMembership membership : started) Await.until("the bootstrap applied on every member", AGREED, () -> membership.current().version() > 0);
  }

  @AfterEach
  void stopAll() {
    started.forEach(RaftMembership::close);
  }

  @Test
  void aTlsGroupFormsAndTakesAJoinAndARemoval() throws Exception {
    NodeAddress newcomer = new NodeAddress("127.0.0.1", FreePort.find());
    String newcomerRaft = RaftAddress.of("127.0.0.1", FreePort.find());
    RaftMembership joining = start(newcomer, newcomerRaft, new RaftMembership.Start.Join(), nodeTls(clusterCa, "newcomer"));

    ClusterMap joined = started.getFirst().join(newcomer, newcomerRaft).get(60, TimeUnit.SECONDS);

    assertThat(joined.member(newcomer)).get().extracting(Member::state).isEqualTo(MemberState.NORMAL);
    // The newcomer hears the group's log over TLS: it applies the map that has it.
    Await.until("the newcomer applies the map that has it", AGREED, () -> joining.current().member(newcomer).isPresent());
    ClusterMap removed = started.get(1).remove(newcomer, false).get(60, TimeUnit.SECONDS);
    assertThat(removed.addresses()).containsExactlyInAnyOrderElementsOf(members.stream().map(Member::address).toList());
    for (RaftMembership membership : started) {
      Await.until("every member applies the removal", AGREED, () -> membership.current().version() >= removed.version());
    }
  }

  @Test
  void aNodeWithACertificateOfAnotherCaCannotJoin() throws Exception {
    ClusterMap before = started.getFirst().current();
    NodeAddress stranger = new NodeAddress("127.0.0.1", FreePort.find());
    String strangerRaft = RaftAddress.of("127.0.0.1", FreePort.find());
    start(stranger, strangerRaft, new RaftMembership.Start.Join(), nodeTls(strangerCa, "stranger"));

    assertThatThrownBy(() -> started.getFirst().join(stranger, strangerRaft).join())
        .isInstanceOf(CompletionException.class).hasCauseInstanceOf(TopologyChangeRefused.class)
        .hasMessageContaining("cannot add " + stranger).hasMessageContaining("certificate is refused");
    assertThat(started.getFirst().current()).as("the map, untouched").isEqualTo(before);
  }

  @Test
  void aNodeWhoseCertificateNamesAnotherHostCannotJoin() throws Exception {
    ClusterMap before = started.getFirst().current();
    NodeAddress misnamed = new NodeAddress("127.0.0.1", FreePort.find());
    String misnamedRaft = RaftAddress.of("127.0.0.1", FreePort.find());
    Path chain = dir.resolve("misnamed.pem");
    Path key = dir.resolve("misnamed.key");
    clusterCa.issueNode("misnamed", List.of("10.9.9.9", "elsewhere.example"), NOT_BEFORE, NOT_AFTER).writeTo(chain, key);
    start(misnamed, misnamedRaft, new RaftMembership.Start.Join(), new RaftTls(open(chain, key, caFile(clusterCa))));

    assertThatThrownBy(() -> started.getFirst().join(misnamed, misnamedRaft).join())
        .hasCauseInstanceOf(TopologyChangeRefused.class).hasMessageContaining("certificate is refused");
    assertThat(started.getFirst().current()).isEqualTo(before);
  }

  @Test
  void withoutANodeCertificateOfTheClusterCaNoClientProposesReadsOrReconfigures() throws Exception {
    ClusterMap before = started.getFirst().current();
    IssuedCertificate strangerNode = strangerCa.issueNode("intruder", List.of("127.0.0.1"), NOT_BEFORE, NOT_AFTER);
    IssuedCertificate clusterClient = clusterCa.issueClient("a client", NOT_BEFORE, NOT_AFTER);
    List<Parameters> intruders = List.of(
        new Parameters(), // in clear
        tlsParameters(strangerNode), // another CA's node certificate
        tlsParameters(clusterClient)); // the cluster CA's, but a client certificate, not a node's
    for (Parameters parameters : intruders) {
      try (RaftClient client = intruderClient(parameters)) {
        TopologyChange change = new TopologyChange.Progress(members.getFirst().address(), "written by an intruder");
        assertRefused("a proposal", () -> client.io().send(Message.valueOf(ByteString.copyFrom(TopologyChangeCodec.encode(change)))));
        assertRefused("a read", () -> client.io().sendReadOnly(Message.EMPTY));
        assertRefused("a reconfiguration", () -> client.admin().setConfiguration(RaftMembership.peers(members.subList(0, 1))));
      }
    }
    for (Member member : members) assertRawBytesAreDropped(member.raftAddress());

    // Nothing of the intruders was applied (each applied change moves the version), and the
    // group still has its three members and takes their changes.
    for (RaftMembership membership : started) {
      assertThat(membership.current()).isEqualTo(before);
      assertThat(membership.group().getPeers()).hasSize(3);
    }
    ClusterMap next = started.get(2).change(new TopologyChange.Progress(members.getFirst().address(), "by a member"))
        .get(60, TimeUnit.SECONDS);
    assertThat(next.version()).isGreaterThan(before.version());
    assertThat(next.member(members.getFirst().address())).get().extracting(Member::progress).isEqualTo("by a member");
    assertThat(next.addresses()).containsExactlyInAnyOrderElementsOf(before.addresses());
  }

  @Test
  void aRenewedCertificateReachesTheRaftPortsNewConnectionsWithoutARestart() throws Exception {
    NodeTls first = tlsOfStarted.getFirst();
    BigInteger before = first.credentials().certificate().getSerialNumber();
    assertThat(servedCertificate(members.getFirst().raftAddress()).getSerialNumber()).isEqualTo(before);

    // The operator renews the node's certificate in place; the node polls its files (here: now).
    Path chain = dir.resolve("n-0.pem");
    IssuedCertificate renewed = clusterCa.issueNode("n renewed", List.of("127.0.0.1", "localhost"), NOT_BEFORE, NOT_AFTER);
    renewed.writeTo(chain, dir.resolve("n-0.key"));
    assertThat(first.reloadIfChanged()).as("the renewed files loaded").isTrue();

    assertThat(servedCertificate(members.getFirst().raftAddress()).getSerialNumber())
        .as("the certificate a new connection to the Raft port meets").isEqualTo(renewed.certificate().getSerialNumber());
    // Its own new connections present it too: a change proposed through it is agreed by all.
    ClusterMap next = started.getFirst().change(new TopologyChange.Progress(members.get(1).address(), "after the renewal"))
        .get(60, TimeUnit.SECONDS);
    for (RaftMembership membership : started) {
      Await.until("every member applies the change", AGREED, () -> membership.current().version() >= next.version());
    }
  }

  /** The certificate the Raft port at {@code raftAddress} presents to a new connection of another member. */
  private X509Certificate servedCertificate(String raftAddress) throws IOException {
    int port = Integer.parseInt(raftAddress.substring(raftAddress.lastIndexOf(':') + 1));
    try (SSLSocket socket = (SSLSocket) tlsOfStarted.get(1).peerHttps().getSocketFactory().createSocket("127.0.0.1", port)) {
      SSLParameters parameters = socket.getSSLParameters();
      parameters.setApplicationProtocols(new String[] {"h2"}); // as a gRPC client
      socket.setSSLParameters(parameters);
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }

  private interface Call {
    @Nullable RaftClientReply call() throws IOException;
  }

  private static void assertRefused(String what, Call call) {
    RaftClientReply reply;
    try {
      reply = call.call();
    } catch (IOException | RuntimeException e) {
      return; // the handshake failed: no connection, no request
    }
    assertThat(reply).as(what + "'s reply").isNotNull();
    assertThat(reply.isSuccess()).as(what + " by an intruder succeeded: " + reply).isFalse();
  }

  /** Bytes that are not TLS (an HTTP/2 preface, as a plaintext gRPC client sends): the server closes the connection. */
  private static void assertRawBytesAreDropped(String raftAddress) throws IOException {
    int port = Integer.parseInt(raftAddress.substring(raftAddress.lastIndexOf(':') + 1));
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout((int) AGREED.toMillis());
      OutputStream out = socket.getOutputStream();
      out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.write(new byte[64]);
      out.flush();
      InputStream in = socket.getInputStream();
      try {
        while (in.read() != -1) {
          // a TLS alert, perhaps; then the close
        }
      } catch (IOException e) {
        // reset: closed as well
      }
    }
  }

  private RaftClient intruderClient(Parameters parameters) {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    return RaftClient.newBuilder()
        .setProperties(properties)
        .setParameters(parameters)
        .setRaftGroup(RaftGroup.valueOf(RaftMembership.GROUP_ID, RaftMembership.peers(members)))
        .setRetryPolicy(RetryPolicies.noRetry())
        .build();
  }

  /** The intruder trusts the cluster CA (it knows whom it talks to); only its own certificate is wrong. */
  private Parameters tlsParameters(IssuedCertificate own) {
    GrpcTlsConfig tls = new GrpcTlsConfig(own.key(), own.certificate(), List.of(clusterCa.certificate()), true);
    Parameters parameters = new Parameters();
    GrpcConfigKeys.TLS.setConf(parameters, tls);
    GrpcConfigKeys.Client.setTlsConf(parameters, tls);
    GrpcConfigKeys.Admin.setTlsConf(parameters, tls);
    return parameters;
  }

  private RaftMembership start(NodeAddress address, String raftAddress, RaftMembership.Start start, NodeTls tls) {
    tlsOfStarted.add(tls);
    return start(address, raftAddress, start, new RaftTls(tls));
  }

  private RaftMembership start(NodeAddress address, String raftAddress, RaftMembership.Start start, RaftTls tls) {
    int raftPort = Integer.parseInt(raftAddress.substring(raftAddress.lastIndexOf(':') + 1));
    RaftMembership membership = RaftMembership.start(dir.resolve("node-" + address.port()), address, "127.0.0.1", raftPort, start,
        TopologyListener.NONE, true, tls);
    started.add(membership);
    return membership;
  }

  /** A node's TLS from files, as {@code shale server} reads them: its chain and key of {@code ca}, trusting {@code ca}. */
  private NodeTls nodeTls(CertificateAuthority ca, String name) throws IOException {
    Path chain = dir.resolve(name + "-" + started.size() + ".pem");
    Path key = dir.resolve(name + "-" + started.size() + ".key");
    ca.issueNode(name, List.of("127.0.0.1", "localhost"), NOT_BEFORE, NOT_AFTER).writeTo(chain, key);
    return open(chain, key, caFile(ca));
  }

  private static NodeTls open(Path chain, Path key, Path clusterCa) {
    try {
      return NodeTls.open(new TlsFiles(chain, key, null, clusterCa), System::currentTimeMillis);
    } catch (TlsSetupException e) {
      throw new AssertionError(e);
    }
  }

  private Path caFile(CertificateAuthority ca) throws IOException {
    Path certificate = dir.resolve("ca-" + ca.certificate().getSerialNumber() + ".pem");
    ca.writeTo(certificate, dir.resolve("ca-" + ca.certificate().getSerialNumber() + ".key"));
    return certificate;
  }

}
