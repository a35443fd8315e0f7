package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Engine;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.PeerWire;
import dev.shale.testkit.TestSeed;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbage and crafted repair requests (TREE, DIGESTS, LEAVES; docs/format.md "Repair requests")
 * against a real node, after a genuine handshake: a payload that does not parse closes the
 * connection; one that parses but names a range or shape the protocol does not allow is answered
 * FAILED 1 (sub-leaves included), then closed; a LEAVES sent to a server closes it. The node keeps serving, its data
 * untouched, and answers a genuine TREE whole, and one for a leaf's sub-leaves. Seeded: replay with -Dshale.seed=N.
 */
class RepairFrameFuzzTest {
  private static final byte[] SECRET = "repair-frame-fuzz-secret".getBytes(StandardCharsets.UTF_8);
  private static final int CONNECTIONS = 100;
  private static final byte[] KEY = "kept".getBytes(StandardCharsets.UTF_8);
  private static final byte[] VALUE = "written before".getBytes(StandardCharsets.UTF_8);

  @Test
  void badRepairRequestsAreRefusedWithoutHarm(@TempDir Path tmp) throws Exception {
    long seed = TestSeed.forTest("RepairFrameFuzzTest");
    Random random = new Random(seed);
    int port = FreePort.find();
    NodeAddress self = new NodeAddress("127.0.0.1", port);
    NodeAddress other = new NodeAddress("127.0.0.1", FreePort.find()); // nothing listens there
    try (TestServer server = TestServer.withAbsentPeer(tmp, port, other, SECRET)) {
      Engine engine = server.engine;
      long version = engine.clock().next();
      try (PeerWire genuine = PeerWire.open(port, SECRET, other.id(), self.id())) {
        assertThat(genuine.write(KEY, VALUE, version)).isEqualTo(new PeerWire.Reply.Stored());
      }
      for (int i = 0; i < CONNECTIONS; i++) {
        try (PeerWire wire = PeerWire.open(port, SECRET, other.id(), self.id())) {
          String what = attack(wire, random, self.id(), other.id());
          assertThat(wire.closedByNode()).as("seed %d, connection %d: %s", seed, i, what).isTrue();
        }
      }
      assertThat(server.get(server.uri("/v0/status")).statusCode()).as("seed %d: HTTP", seed).isEqualTo(200);
      assertThat(engine.get(KEY).value()).isEqualTo(VALUE);
      try (PeerWire genuine = PeerWire.open(port, SECRET, other.id(), self.id())) {
        genuine.send(PeerWire.TREE, 1, tree(2, 5, other.id()));
        long[] leaves = leavesOf(genuine, 32);
        assertThat(Arrays.stream(leaves).filter(h -> h != 0).count()).as("one key: one leaf holds it").isEqualTo(1);
        int held = java.util.stream.IntStream.range(0, leaves.length).filter(i -> leaves[i] != 0).findFirst().orElseThrow();
        byte[] bitmap = new byte[4];
        bitmap[held / 8] |= (byte) (1 << (held % 8));
        try (PeerWire again = PeerWire.open(port, SECRET, other.id(), self.id())) {
          again.send(PeerWire.TREE, 1, subTree(2, 5, other.id(), 2, bitmap));
          long[] subLeaves = leavesOf(again, 4);
          assertThat(Arrays.stream(subLeaves).filter(h -> h != 0).toArray()).as("its sub-leaves: one holds the key")
              .containsExactly(leaves[held]);
        }
      }
    }
  }

  /** Sends one bad repair request; what it was. A refusal must be FAILED 1 when the request parses. */
  private static String attack(PeerWire wire, Random random, String self, String other) throws IOException {
    boolean digests = random.nextBoolean();
    byte[] good = digests ? digests(2, 4, other, new byte[2]) : tree(2, 4, other);
    int type = digests ? PeerWire.DIGESTS : PeerWire.TREE;
    switch (random.nextInt(9)) {
      case 0 -> wire.send(type, 1, Arrays.copyOf(good, random.nextInt(good.length))); // cut short
      case 1 -> wire.send(type, 1, concat(good, new byte[] {(byte) random.nextInt(256)})); // a byte left over
      case 2 -> refused(wire, PeerWire.TREE, tree(random.nextBoolean() ? 1 : 3 + random.nextInt(253), 4, other)); // replicas
      case 3 -> refused(wire, PeerWire.TREE, tree(2, random.nextBoolean() ? random.nextInt(3) : 17 + random.nextInt(239), other)); // leaf bits
      case 4 -> refused(wire, PeerWire.TREE, tree(2, 4, random.nextBoolean() ? self : "127.0.0.1:1")); // itself, or no node
      case 5 -> refused(wire, PeerWire.DIGESTS, digests(2, 4, other, new byte[random.nextBoolean() ? 1 : 3 + random.nextInt(50)])); // bitmap
      case 6 -> wire.send(PeerWire.LEAVES, 1, leavesPayload(random)); // an answer sent to a server
      case 7 -> badSubLeaves(wire, random, other);
      default -> wire.send(type, 0, good); // request id 0
    }
    return (digests ? "DIGESTS " : "TREE ") + Arrays.toString(good);
  }

  private static void refused(PeerWire wire, int type, byte[] payload) throws IOException {
    wire.send(type, 1, payload);
    PeerWire.Frame answer = wire.receive();
    assertThat(answer).as("an answer to a request that parses").isNotNull();
    assertThat(answer.type()).isEqualTo(PeerWire.FAILED);
    assertThat(answer.payload()[0]).as("FAILED code").isEqualTo((byte) 1);
  }

  /** Reads a TREE's LEAVES frames until {@code count} hashes came. */
  private static long[] leavesOf(PeerWire wire, int count) throws IOException {
    List<Long> hashes = new ArrayList<>();
    while (hashes.size() < count) {
      PeerWire.Frame frame = wire.receive();
      assertThat(frame).as("a LEAVES frame").isNotNull();
      assertThat(frame.type()).isEqualTo(PeerWire.LEAVES);
      ByteBuffer payload = ByteBuffer.wrap(frame.payload()).order(ByteOrder.LITTLE_ENDIAN);
      assertThat(readUvarint(payload)).as("first leaf").isEqualTo(hashes.size());
      int bytes = readUvarint(payload);
      for (int i = 0; i < bytes / 8; i++) hashes.add(payload.getLong());
    }
    return hashes.stream().mapToLong(Long::longValue).toArray();
  }

  private static int readUvarint(ByteBuffer in) {
    int value = 0;
    for (int shift = 0; ; shift += 7) {
      int b = in.get() & 0xFF;
      value |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) return value;
    }
  }

  private static byte[] range(int replicas, int leafBits, String other) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(replicas);
    out.write(leafBits);
    out.writeBytes(PeerWire.bytes(other.getBytes(StandardCharsets.UTF_8)));
    return out.toByteArray();
  }

  private static byte[] tree(int replicas, int leafBits, String other) {
    return subTree(replicas, leafBits, other, 0, new byte[0]);
  }

  private static byte[] subTree(int replicas, int leafBits, String other, int subBits, byte[] bitmap) {
    return concat(concat(range(replicas, leafBits, other), new byte[] {(byte) subBits}), PeerWire.bytes(bitmap));
  }

  private static byte[] digests(int replicas, int leafBits, String other, byte[] bitmap) {
    return subDigests(replicas, leafBits, other, bitmap, 0, new byte[0]);
  }

  private static byte[] subDigests(int replicas, int leafBits, String other, byte[] bitmap, int subBits, byte[] masks) {
    byte[] head = concat(range(replicas, leafBits, other), PeerWire.bytes(bitmap));
    return concat(concat(head, new byte[] {(byte) subBits}), PeerWire.bytes(masks));
  }

  /** A request for sub-leaves the protocol does not allow (docs/format.md, "Repair requests"). */
  private static void badSubLeaves(PeerWire wire, Random random, String other) throws IOException {
    byte[] twoLeaves = {0b101, 0}; // leaves 0 and 2 of 2^4
    switch (random.nextInt(5)) {
      case 0 -> refused(wire, PeerWire.TREE, subTree(2, 4, other, 5 + random.nextInt(251), twoLeaves)); // sub bits
      case 1 -> refused(wire, PeerWire.TREE, random.nextBoolean()
          ? subTree(2, 4, other, 0, twoLeaves) // the whole tree, with a bitmap
          : subTree(2, 4, other, 2, new byte[2 + random.nextInt(3)])); // no leaf selected, or a bitmap of another length
      case 2 -> refused(wire, PeerWire.DIGESTS, subDigests(2, 4, other, twoLeaves, 3, new byte[] {1})); // one mask for two leaves
      case 3 -> refused(wire, PeerWire.DIGESTS, subDigests(2, 4, other, twoLeaves, 2, new byte[] {1, 0x10})); // a sub-leaf past 2^2
      default -> refused(wire, PeerWire.DIGESTS, subDigests(2, 4, other, twoLeaves, 0, new byte[] {1, 1})); // masks without sub bits
    }
  }

  private static byte[] leavesPayload(Random random) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PeerWire.writeUvarint(out, 0);
    byte[] hashes = new byte[8 * random.nextInt(4)];
    random.nextBytes(hashes);
    out.writeBytes(PeerWire.bytes(hashes));
    return out.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }
}
