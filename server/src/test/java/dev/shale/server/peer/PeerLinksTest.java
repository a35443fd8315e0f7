package dev.shale.server.peer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Env;
import dev.shale.testkit.FreePort;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PeerLinksTest {
  private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());

  @AfterEach
  void stop() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void manyRequestsShareOneConnectionAndEachGetsItsAnswer() throws Exception {
    try (TestPeerServer server = new TestPeerServer()) {
      PeerLinks links = new PeerLinks(List.of(server.self), group, server.dialer(), 10_000, 1024, Env.real());
      EventExecutor loop = group.next();
      List<Future<PeerMessage.Answer>> answers = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        boolean write = i % 2 == 0;
        answers.add(links.send(loop, server.self, id -> write ? new PeerMessage.Write(id, 0, 1, KEY, KEY) : new PeerMessage.Read(id, 0, KEY)));
      }
      for (int i = 0; i < answers.size(); i++) {
        Future<PeerMessage.Answer> answer = answers.get(i).await();
        assertThat(answer.cause()).isNull();
        assertThat(answer.getNow()).isInstanceOf(i % 2 == 0 ? PeerMessage.Stored.class : PeerMessage.Absent.class);
      }
      assertThat(server.authenticated).hasSize(1); // one connection: one loop, one handshake
      links.close();
    }
  }

  @Test
  void aFullPerPeerQueueFailsARequestAtOnce() throws Exception {
    try (TestPeerServer stalled = new TestPeerServer(false)) {
      PeerLinks links = new PeerLinks(List.of(stalled.self), group, stalled.dialer(), 60_000, 2, Env.real());
      EventExecutor loop = group.next();
      Future<PeerMessage.Answer> first = links.send(loop, stalled.self, id -> new PeerMessage.Read(id, 0, KEY));
      Future<PeerMessage.Answer> second = links.send(loop, stalled.self, id -> new PeerMessage.Read(id, 0, KEY));
      Future<PeerMessage.Answer> third = links.send(loop, stalled.self, id -> new PeerMessage.Read(id, 0, KEY)).await();
      assertThat(third.cause()).isInstanceOf(PeerFailure.class).hasMessageContaining("--peer-queue");
      assertThat(((PeerFailure) third.cause()).wasWritten()).isFalse();
      assertThat(first.isDone()).isFalse();
      assertThat(second.isDone()).isFalse();
      links.close();
      assertThat(first.await().cause()).isInstanceOf(PeerFailure.class);
    }
  }

  @Test
  void aPeerThatRefusesIsMarkedDown() throws Exception {
    try (TestPeerServer server = new TestPeerServer()) {
      NodeAddress nobody = new NodeAddress("127.0.0.1", FreePort.find());
      PeerLinks links = new PeerLinks(List.of(nobody), group, server.dialer(), 10_000, 16, Env.real());
      EventExecutor loop = group.next();
      assertThat(links.send(loop, nobody, id -> new PeerMessage.Read(id, 0, KEY)).await().cause())
          .hasMessageContaining("cannot connect to " + nobody);
      assertThat(links.downBackoffMillis(nobody)).isEqualTo(DownMark.FIRST_BACKOFF_MILLIS);
      links.close();
    }
  }
}
