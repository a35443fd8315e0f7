package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Engine;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.PeerWire;
import dev.shale.testkit.TestSeed;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbage and crafted frames against a real node's peer port, from {@link PeerWire} (the spec's
 * own client): random bytes after the preface, truncated frames, bad crcs, huge lengths,
 * requests before READY, and frames that look valid but carry a wrong payload after a genuine
 * handshake. Each such connection is closed by the node (or by the test, for a truncated frame);
 * the node keeps serving HTTP and peers, and what was written before stays as written. Seeded:
 * replay with -Dshale.seed=N (TestSeed prints it).
 */
class PeerFrameFuzzTest {
  private static final byte[] SECRET = "peer-frame-fuzz-secret".getBytes(StandardCharsets.UTF_8);
  private static final int CONNECTIONS = 120;
  private static final byte[] KEY = bytes("kept");
  private static final byte[] VALUE = bytes("written before");

  @Test
  void badFramesCloseTheirConnectionAndHarmNothing(@TempDir Path tmp) throws Exception {
    long seed = TestSeed.forTest("PeerFrameFuzzTest");
    Random random = new Random(seed);
    int port = FreePort.find();
    NodeAddress self = new NodeAddress("127.0.0.1", port);
    NodeAddress other = new NodeAddress("127.0.0.1", FreePort.find()); // nothing listens there
    try (TestServer server = TestServer.withAbsentPeer(tmp, port, other, SECRET)) {
      Engine engine = server.engine;
      Peer peer = new Peer(port, other.id(), self.id());
      long version = engine.clock().next();
      try (PeerWire genuine = peer.open()) {
        assertThat(genuine.write(KEY, VALUE, version)).isEqualTo(new PeerWire.Reply.Stored());
      }
      for (int i = 0; i < CONNECTIONS; i++) {
        Attack attack = Attack.values()[random.nextInt(Attack.values().length)];
        try (PeerWire wire = attack.begin(peer)) {
          boolean closed;
          try {
            closed = attack.send(wire, random);
          } catch (java.net.SocketException e) {
            closed = true; // reset by the node while the test still wrote: closed too
          }
          assertThat(closed || wire.closedByNode()).as("seed %d, connection %d: %s", seed, i, attack).isTrue();
        }
        if (i % 20 == 19) assertServes(server, peer, version, seed);
      }
      assertServes(server, peer, version, seed);
      assertThat(engine.get(KEY).value()).isEqualTo(VALUE);
    }
  }

  private static void assertServes(TestServer server, Peer peer, long version, long seed) throws IOException {
    assertThat(server.get(server.uri("/v0/status")).statusCode()).as("seed %d: HTTP", seed).isEqualTo(200);
    try (PeerWire genuine = peer.open()) {
      PeerWire.Reply read = genuine.read(KEY);
      assertThat(read).as("seed %d: a peer's read", seed).isInstanceOf(PeerWire.Reply.Value.class);
      assertThat(((PeerWire.Reply.Value) read).version()).isEqualTo(version);
      assertThat(((PeerWire.Reply.Value) read).value()).isEqualTo(VALUE);
    }
  }

  /** Who the test claims to be: the node's other peer, holding the secret. */
  private record Peer(int port, String sender, String receiver) {
    PeerWire open() throws IOException {
      return PeerWire.open(port, SECRET, sender, receiver);
    }

    PeerWire connect() throws IOException {
      return PeerWire.connect(port).sendBytes(PeerWire.PREFACE);
    }
  }

  /** One kind of bad connection: how it starts, and what it sends; true if the test closed it itself. */
  private enum Attack {
    RANDOM_BYTES_AFTER_PREFACE {
      @Override
      boolean send(PeerWire wire, Random random) throws IOException {
        // More than a 64 KiB frame: a length the node takes completes a frame, whose crc fails.
        wire.sendBytes(randomBytes(random, 70_000 + random.nextInt(1000)));
        return false;
      }
    },
    TRUNCATED_FRAME {
      @Override
      boolean send(PeerWire wire, Random random) throws IOException {
        byte[] frame = PeerWire.frame(PeerWire.HELLO, 0, randomBytes(random, 1 + random.nextInt(200)));
        wire.sendBytes(Arrays.copyOf(frame, random.nextInt(frame.length)));
        return true; // the test goes away mid-frame
      }
    },
    BAD_CRC {
      @Override
      boolean send(PeerWire wire, Random random) throws IOException {
        wire.sendBytes(corruptCrc(PeerWire.frame(PeerWire.HELLO, 0, randomBytes(random, random.nextInt(100))), random));
        return false;
      }
    },
    HUGE_LENGTH {
      @Override
      boolean send(PeerWire wire, Random random) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long length = (64 << 10) + 1 + (random.nextLong() & 0xFFFF_FFFFL); // over the limit, up to a 5-byte uvarint
        PeerWire.writeUvarint(bytes, length);
        bytes.writeBytes(randomBytes(random, 64));
        wire.sendBytes(bytes.toByteArray());
        return false;
      }
    },
    REQUEST_BEFORE_HELLO {
      @Override
      boolean send(PeerWire wire, Random random) throws IOException {
        wire.send(PeerWire.READ, 1, PeerWire.bytes(KEY));
        return false;
      }
    },
    REQUEST_BEFORE_READY {
      @Override
      PeerWire begin(Peer peer) throws IOException {
        PeerWire wire = peer.connect();
        byte[] hello = PeerWire.hello(PeerWire.PROTOCOL_VERSION, PeerWire.MODE_SECRET, peer.sender(), peer.receiver(),
            0, PeerWire.nonce());
        wire.send(PeerWire.HELLO, 0, hello);
        wire.challenge(SECRET, hello);
        return wire;
      }

      @Override
      boolean send(PeerWire wire, Random random) throws IOException {
        wire.send(PeerWire.WRITE, 1, PeerWire.writePayload(Long.MAX_VALUE >>> 20, 0, KEY, bytes("before ready")));
        return false;
      }
    },
    WRONG_PAYLOAD_AFTER_HANDSHAKE {
      @Override
      PeerWire begin(Peer peer) throws IOException {
        return peer.open();
      }

      @Override
      boolean send(PeerWire wire, Random random) throws IOException {
        byte[] value = randomBytes(random, random.nextInt(300));
        long version = random.nextLong() >>> 24;
        byte[] write = PeerWire.writePayload(version, 0, KEY, value);
        switch (random.nextInt(9)) {
          case 0 -> wire.send(PeerWire.WRITE, 1, PeerWire.writePayload(version, 2 + random.nextInt(254), KEY, value)); // undefined flag bits
          case 1 -> wire.send(PeerWire.WRITE, 1, Arrays.copyOf(write, 1 + random.nextInt(write.length - 1))); // cut short
          case 2 -> wire.send(PeerWire.WRITE, 1, concat(write, randomBytes(random, 1 + random.nextInt(8)))); // bytes left over
          case 3 -> wire.send(PeerWire.READ, 1, concat(PeerWire.bytes(KEY), new byte[] {0})); // bytes left over
          case 4 -> wire.send(PeerWire.READ, 1, new byte[] {(byte) (KEY.length + 5)}); // a key past the end
          case 5 -> wire.send(0x30 + random.nextInt(0xD0), 1, randomBytes(random, random.nextInt(20))); // unknown type
          case 6 -> wire.send(PeerWire.STORED, 1, new byte[0]); // an answer sent to a server
          case 7 -> wire.send(PeerWire.READ, 0, PeerWire.bytes(KEY)); // request id 0
          default -> wire.sendBytes(corruptCrc(PeerWire.frame(PeerWire.WRITE, 1, write), random));
        }
        return false;
      }
    };

    PeerWire begin(Peer peer) throws IOException {
      return peer.connect();
    }

    abstract boolean send(PeerWire wire, Random random) throws IOException;
  }

  // The crc sits after the length's uvarint; flip at least one of its bits.
  private static byte[] corruptCrc(byte[] frame, Random random) {
    int lengthBytes = 0;
    while ((frame[lengthBytes] & 0x80) != 0) lengthBytes++;
    byte[] corrupt = frame.clone();
    corrupt[lengthBytes + 1 + random.nextInt(4)] ^= (byte) (1 << random.nextInt(8));
    return corrupt;
  }

  private static byte[] randomBytes(Random random, int n) {
    byte[] bytes = new byte[n];
    random.nextBytes(bytes);
    return bytes;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
