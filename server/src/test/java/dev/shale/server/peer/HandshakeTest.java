package dev.shale.server.peer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.server.LogCapture;
import dev.shale.storage.Env;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.Future;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HandshakeTest {
  @Test
  void aNodeOfTheClusterIsAcceptedAndItsRequestsAnswered() throws Exception {
    try (TestPeerServer server = new TestPeerServer()) {
      Channel channel = dial(server, server.dialer());
      CompletableFuture<PeerMessage> answer = new CompletableFuture<>();
      channel.eventLoop().submit(() -> channel.pipeline().addLast(new SimpleChannelInboundHandler<PeerMessage>() {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, PeerMessage msg) {
          answer.complete(msg);
        }
      })).sync();
      channel.writeAndFlush(new PeerMessage.Read(1, 0, "k".getBytes(StandardCharsets.UTF_8)));
      assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(new PeerMessage.Absent(1));
      assertThat(server.authenticated).containsExactly(server.client.id());
      channel.close().sync();
    }
  }

  @Test
  void aServerWithoutTheSecretIsNotAnsweredWithAProof() throws Exception {
    try (TestPeerServer server = new TestPeerServer()) {
      Future<Channel> dialed = server.dialer("another-secret-of-32-bytes-long!".getBytes(StandardCharsets.UTF_8), server.client)
          .dial(loop(server), server.self);
      assertThat(dialed.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(dialed.cause()).isInstanceOf(HandshakeRefused.class).hasMessageContaining("cannot prove the cluster secret");
    }
  }

  @Test
  void aClientWithAWrongProofIsRefusedWithALogLine() throws Exception {
    try (TestPeerServer server = new TestPeerServer(); LogCapture log = LogCapture.of(ServerHandshake.class.getName());
        RawPeer peer = new RawPeer(server.port())) {
      peer.preface().send(hello(server, Handshakes.PROTOCOL_VERSION));
      assertThat(peer.receive()).isInstanceOf(PeerMessage.Challenge.class);
      peer.send(new PeerMessage.Proof(new byte[32]));
      assertThat(peer.receive()).isEqualTo(new PeerMessage.Refused("wrong cluster secret"));
      assertThat(peer.closedByServer()).isTrue();
      assertThat(log.lines()).anyMatch(line -> line.contains(server.client.id()) && line.contains("wrong cluster secret"));
    }
  }

  @Test
  void aRecordedHandshakeReplayedOnANewConnectionIsRefused() throws Exception {
    try (TestPeerServer server = new TestPeerServer()) {
      // A genuine client, recorded: its HELLO and PROOF as they went over the wire.
      PeerMessage.Hello hello = hello(server, Handshakes.PROTOCOL_VERSION);
      byte[] proof;
      try (RawPeer genuine = new RawPeer(server.port())) {
        genuine.preface().send(hello);
        PeerMessage.Challenge challenge = (PeerMessage.Challenge) genuine.receive();
        proof = RawPeer.encoded(new PeerMessage.Proof(
            InternalAuth.withSecret(TestPeerServer.SECRET, Env.real()::wallMillis).clientProof(hello.payload(), challenge.serverNonce())));
        genuine.send(proof);
        assertThat(genuine.receive()).isEqualTo(new PeerMessage.Ready());
      }
      try (RawPeer replay = new RawPeer(server.port())) {
        replay.preface().send(RawPeer.encoded(hello)).send(proof);
        assertThat(replay.receive()).isInstanceOf(PeerMessage.Challenge.class); // a fresh nonce
        assertThat(replay.receive()).isEqualTo(new PeerMessage.Refused("wrong cluster secret"));
        assertThat(replay.closedByServer()).isTrue();
      }
      assertThat(server.authenticated).containsExactly(server.client.id());
    }
  }

  @Test
  void anotherProtocolVersionIsRefusedNamingBoth() throws Exception {
    try (TestPeerServer server = new TestPeerServer(); LogCapture log = LogCapture.of(ServerHandshake.class.getName());
        RawPeer peer = new RawPeer(server.port())) {
      int other = Handshakes.PROTOCOL_VERSION + 1;
      peer.preface().send(hello(server, other));
      PeerMessage refused = peer.receive();
      String reason = "protocol version " + other + " is not this node's " + Handshakes.PROTOCOL_VERSION;
      assertThat(refused).isInstanceOf(PeerMessage.Refused.class);
      assertThat(((PeerMessage.Refused) refused).reason()).contains(reason);
      assertThat(peer.closedByServer()).isTrue();
      assertThat(log.lines()).anyMatch(line -> line.contains(reason));
    }
  }

  @Test
  void aSenderThatIsNotAMemberIsRefusedNamingBothMaps() throws Exception {
    try (TestPeerServer server = new TestPeerServer(); LogCapture log = LogCapture.of(ServerHandshake.class.getName())) {
      NodeAddress stranger = new NodeAddress("127.0.0.1", 1);
      Future<Channel> dialed = server.dialer(TestPeerServer.SECRET, stranger).dial(loop(server), server.self);
      assertThat(dialed.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(dialed.cause()).isInstanceOf(HandshakeRefused.class).hasMessageContaining("is not another member of this node's cluster map");
      assertThat(log.lines()).anyMatch(line -> line.contains("'127.0.0.1:1' (at cluster map version 0)") && line.contains("(version 0: ["));
      assertThat(server.authenticated).isEmpty();
    }
  }

  @Test
  void aMemberIsTakenWhateverItsMapVersion() throws Exception {
    try (TestPeerServer server = new TestPeerServer(); RawPeer peer = new RawPeer(server.port())) {
      PeerMessage.Hello ahead = Frames.hello(Handshakes.PROTOCOL_VERSION, InternalAuth.MODE_SECRET, server.client.id(), server.self.id(),
          1_234_567, new byte[32]);
      peer.preface().send(ahead);
      assertThat(peer.receive()).isInstanceOf(PeerMessage.Challenge.class);
    }
  }

  @Test
  void aRequestBeforeTheHandshakeEndedClosesTheConnection() throws Exception {
    try (TestPeerServer server = new TestPeerServer(); RawPeer peer = new RawPeer(server.port())) {
      peer.preface().send(new PeerMessage.Write(1, 0, 1, "k".getBytes(StandardCharsets.UTF_8), new byte[1]));
      assertThat(peer.receive()).isInstanceOf(PeerMessage.Refused.class);
      assertThat(peer.closedByServer()).isTrue();
    }
  }

  @Test
  void theSamePortServesHttpAndRefusesABadPreface() throws Exception {
    try (TestPeerServer server = new TestPeerServer()) {
      try (Socket http = new Socket("127.0.0.1", server.port())) {
        http.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(readAll(http.getInputStream())).isEqualTo(TestPeerServer.HTTP_ANSWER);
      }
      try (RawPeer peer = new RawPeer(server.port())) {
        peer.send(new byte[] {(byte) 0x89, 'S', 'H', 'A', 'L', 'E', '\n', '\n'});
        assertThat(peer.closedByServer()).isTrue();
      }
    }
  }

  private static PeerMessage.Hello hello(TestPeerServer server, int version) {
    return Frames.hello(version, InternalAuth.MODE_SECRET, server.client.id(), server.self.id(), 0, new byte[32]);
  }

  private static Channel dial(TestPeerServer server, PeerDialer dialer) throws InterruptedException {
    Future<Channel> dialed = dialer.dial(loop(server), server.self);
    assertThat(dialed.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(dialed.cause()).isNull();
    return dialed.getNow();
  }

  private static EventLoop loop(TestPeerServer server) {
    return (EventLoop) server.group.next();
  }

  private static String readAll(InputStream in) throws java.io.IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toString(StandardCharsets.US_ASCII);
  }
}
