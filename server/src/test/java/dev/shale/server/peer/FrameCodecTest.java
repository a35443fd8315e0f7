package dev.shale.server.peer;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.handoff.GainedKeys;
import dev.shale.cluster.handoff.PlacementChange;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.testkit.TestSeed;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FrameCodecTest {
  private static final int MAX_VALUE = 1 << 20;

  @Test
  void theFormatsExampleFramesAreWhatTheEncoderWrites() {
    assertThat(hex(new PeerMessage.Read(1, 7, bytes("k")))).isEqualTo("05c82f95c7100107016b");
    assertThat(hex(new PeerMessage.Write(2, 7, 0x0000_0193_0000_0001L, bytes("k"), bytes("v1"))))
        .isEqualTo("11e3a698d5110207010000009301000000016b027631");
    assertThat(hex(new PeerMessage.Stored(2))).isEqualTo("021bca5c852302");
  }

  @Test
  void everyRequestRoundTripsThroughTheServersDecoder() {
    List<PeerMessage> requests = List.of(
        Frames.hello(2, 0, "127.0.0.1:1", "127.0.0.1:2", 300, new byte[32]),
        new PeerMessage.Proof(new byte[32]),
        new PeerMessage.Read(1, 0, bytes("key")),
        new PeerMessage.Write(300, 0, 42, bytes("key"), bytes("value")),
        new PeerMessage.Write(Long.MAX_VALUE, 0, -1, bytes("key"), null),
        new PeerMessage.Write(5, 0, 7, bytes("big"), new byte[70_000]),
        new PeerMessage.Write(6, 3, 7, bytes("expiring"), bytes("value"), 1_764_000_000_000L),
        new PeerMessage.Scan(-1L, bytes("a"), null, null), // -1: the largest u64, 10 bytes of varint
        new PeerMessage.Scan(9, new byte[0], bytes("z"), null),
        new PeerMessage.Scan(10, bytes("a"), null, joinOfAFourthNode()),
        new PeerMessage.Tree(1, 3, 16, "127.0.0.1:2", 0, new byte[0]),
        new PeerMessage.Tree(1, 3, 3, "127.0.0.1:2", 4, new byte[] {(byte) 0x81}),
        new PeerMessage.Digests(1, 2, 4, "127.0.0.1:2", new byte[] {1, (byte) 0x80}, 0, new byte[0]),
        new PeerMessage.Digests(1, 2, 4, "127.0.0.1:2", new byte[] {1, (byte) 0x80}, 3, new byte[] {2, (byte) 0xFF}));
    EmbeddedChannel server = channel(FrameDecoder.Side.SERVER);
    server.pipeline().get(FrameDecoder.class).authenticated(Frames.maxFrameBytes(MAX_VALUE));
    for (PeerMessage request : requests) {
      PeerMessage decoded = roundTrip(server, request);
      assertThat(decoded).usingRecursiveComparison().isEqualTo(request);
    }
  }

  /** A handoff filter: the fourth node pulls what it gains from the first three. */
  private static GainedKeys joinOfAFourthNode() {
    List<NodeAddress> nodes = List.of(new NodeAddress("127.0.0.1", 1), new NodeAddress("127.0.0.1", 2),
        new NodeAddress("127.0.0.1", 3), new NodeAddress("127.0.0.1", 4));
    PlacementChange join = PlacementChange.between(nodes.subList(0, 3), nodes, 3);
    return new GainedKeys(join, nodes.get(3), Set.copyOf(join.rangesGainedBy(nodes.get(3))));
  }

  @Test
  void everyAnswerRoundTripsThroughTheClientsDecoder() {
    EmbeddedChannel client = channel(FrameDecoder.Side.CLIENT);
    assertThat(roundTrip(client, new PeerMessage.Challenge(new byte[32], new byte[32])))
        .usingRecursiveComparison().isEqualTo(new PeerMessage.Challenge(new byte[32], new byte[32]));
    for (PeerMessage answer : List.<PeerMessage>of(new PeerMessage.Refused("no"), new PeerMessage.Ready(),
        new PeerMessage.Tombstone(3, 99), new PeerMessage.Absent(4), new PeerMessage.Stored(5),
        new PeerMessage.Failed(6, PeerMessage.Failed.OVERLOADED, "busy: ünïcode"))) {
      assertThat(roundTrip(client, answer)).isEqualTo(answer);
    }
    long[] hashes = {1, -1, Long.MIN_VALUE, 0};
    assertThat(roundTrip(client, new PeerMessage.Leaves(9, 4092, hashes)))
        .usingRecursiveComparison().isEqualTo(new PeerMessage.Leaves(9, 4092, hashes));
    PeerMessage.Value value = (PeerMessage.Value) roundTrip(client, new PeerMessage.Value(7, 11, Unpooled.wrappedBuffer(bytes("v"))));
    assertThat(value.version()).isEqualTo(11);
    assertThat(ByteBufUtil.getBytes(value.value())).isEqualTo(bytes("v"));
    assertThat(value.expiresAtMillis()).isZero();
    PeerMessage.Value expiring = (PeerMessage.Value) roundTrip(client,
        new PeerMessage.Value(7, 11, Unpooled.wrappedBuffer(bytes("v")), 1_764_000_000_000L));
    assertThat(expiring.version()).isEqualTo(11);
    assertThat(expiring.expiresAtMillis()).isEqualTo(1_764_000_000_000L);
    assertThat(ByteBufUtil.getBytes(expiring.value())).isEqualTo(bytes("v"));
    PeerMessage.ScanData data = (PeerMessage.ScanData) roundTrip(client, new PeerMessage.ScanData(8, Unpooled.wrappedBuffer(bytes("piece"))));
    assertThat(ByteBufUtil.getBytes(data.data())).isEqualTo(bytes("piece"));
    data.data().release();
  }

  @Test
  void framesCutAnywhereAreReassembled() {
    long seed = TestSeed.forTest("FrameCodecTest.framesCutAnywhereAreReassembled");
    Random random = new Random(seed);
    EmbeddedChannel server = channel(FrameDecoder.Side.SERVER);
    ByteBuf all = Unpooled.buffer();
    for (int i = 1; i <= 200; i++) {
      ByteBuf frame = Frames.encode(ByteBufAllocator.DEFAULT, new PeerMessage.Write(i, 0, i, bytes("k" + i), new byte[random.nextInt(3000)]));
      all.writeBytes(frame);
      frame.release();
    }
    while (all.isReadable()) server.writeInbound(all.readRetainedSlice(Math.min(all.readableBytes(), 1 + random.nextInt(700))));
    all.release();
    for (int i = 1; i <= 200; i++) assertThat(((PeerMessage.Write) server.readInbound()).id()).as("seed %d", seed).isEqualTo(i);
  }

  @Test
  void aFrameThatFailsItsCrcIsRefused() {
    byte[] frame = encoded(new PeerMessage.Read(1, 0, bytes("k")));
    frame[frame.length - 1] ^= 1;
    assertRefused(FrameDecoder.Side.SERVER, frame, "crc");
  }

  @Test
  void framesOverTheLimitAreRefusedBeforeTheirBytesArrive() {
    // Before the handshake: 64 KiB. A length over it is refused on its own, with no body sent.
    ByteBuf length = Unpooled.buffer();
    Uvarint.write(length, Frames.MAX_HANDSHAKE_FRAME_BYTES + 1);
    assertRefused(FrameDecoder.Side.SERVER, ByteBufUtil.getBytes(length), "over the limit");
    EmbeddedChannel authenticated = channel(FrameDecoder.Side.SERVER);
    authenticated.pipeline().get(FrameDecoder.class).authenticated(Frames.maxFrameBytes(MAX_VALUE));
    assertThat(roundTrip(authenticated, new PeerMessage.Write(1, 0, 1, bytes("k"), new byte[MAX_VALUE]))).isNotNull();
    assertThatThrownBy(() -> authenticated.writeInbound(Unpooled.wrappedBuffer(
        encoded(new PeerMessage.Write(2, 0, 1, bytes("k"), new byte[MAX_VALUE + Frames.FRAME_SLACK_BYTES])))))
        .isInstanceOf(DecoderException.class).hasMessageContaining("over the limit");
  }

  @Test
  void malformedFramesAreRefused() {
    assertRefused(FrameDecoder.Side.SERVER, frame(0x7F, 1, new byte[0]), "type 0x7f");
    assertRefused(FrameDecoder.Side.SERVER, encoded(new PeerMessage.Stored(1)), "no frame a server receives");
    assertRefused(FrameDecoder.Side.CLIENT, encoded(new PeerMessage.Read(1, 0, bytes("k"))), "no frame a client receives");
    assertRefused(FrameDecoder.Side.SERVER, frame(0x10, 1, new byte[] {7, 5, 'k'}), "runs past the end");
    assertRefused(FrameDecoder.Side.SERVER, frame(0x10, 1, new byte[] {7, 1, 'k', 0}), "after its payload");
    assertRefused(FrameDecoder.Side.SERVER, frame(0x11, 1, new byte[] {7, 0, 0, 0, 0, 0, 0, 0, 0, 4, 1, 'k', 0}), "flag bits");
    assertRefused(FrameDecoder.Side.SERVER, frame(0x11, 1, new byte[] {7, 0, 0, 0, 0, 0, 0, 0, 0, 3, 1, 0, 0, 0, 0, 0, 0, 0, 1, 'k', 0}),
        "tombstone WRITE with an expiry");
    assertRefused(FrameDecoder.Side.SERVER, frame(0x11, 1, new byte[] {7, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 'k', 1, 'v'}),
        "expiry 0");
    assertRefused(FrameDecoder.Side.CLIENT, frame(0x27, 1, new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0x80, 1, 'v'}),
        "expiry -");
    assertRefused(FrameDecoder.Side.SERVER, frame(0x11, 1, new byte[] {7, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'k', 1, 'v'}), "tombstone");
    assertRefused(FrameDecoder.Side.SERVER, frame(0x03, 5, new byte[] {0}), "id 5, not 0");
    assertRefused(FrameDecoder.Side.SERVER, new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0}, "varint");
  }

  @Test
  void scansWithABadHandoffFilterAreRefused() {
    String three = "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3";
    String four = three + ",127.0.0.1:4";
    String gained = three + "|127.0.0.1:2,127.0.0.1:3,127.0.0.1:4"; // the fourth takes the first's place
    assertRefused(FrameDecoder.Side.SERVER, frame(0x12, 1, new byte[] {4, 1, 'a', 0}), "flag bits");
    assertRefused(FrameDecoder.Side.SERVER, scan(0, three, four, "127.0.0.1:4", List.of(gained)), "bad handoff filter");
    assertRefused(FrameDecoder.Side.SERVER, scan(3, three, four, "127.0.0.1:5", List.of(gained)), "is not a node after the change");
    assertRefused(FrameDecoder.Side.SERVER, scan(3, three, four, "127.0.0.1:4", List.of()), "with 0 ranges");
    assertRefused(FrameDecoder.Side.SERVER, scan(3, three, four + ",127.0.0.1:4", "127.0.0.1:4", List.of(gained)), "twice");
    assertRefused(FrameDecoder.Side.SERVER, scan(3, three, "not a node", "127.0.0.1:4", List.of(gained)), "bad node id");
    assertRefused(FrameDecoder.Side.SERVER, scan(3, three, four, "127.0.0.1:4", List.of("|" + three)), "bad node id");
    assertRefused(FrameDecoder.Side.SERVER, scan(3, three, four, "127.0.0.1:4", List.of(three + "|" + three)), "does not gain range");
  }

  /** A SCAN of everything with a handoff filter of these fields, as the format gives them; each range "before|after". */
  private static byte[] scan(int replicas, String before, String after, String receiver, List<String> ranges) {
    ByteBuf payload = Unpooled.buffer();
    payload.writeByte(2);
    Frames.writeBytes(payload, new byte[0]);
    Frames.writeBytes(payload, new byte[0]);
    Uvarint.write(payload, 7); // map_version
    Uvarint.write(payload, replicas);
    Frames.writeString(payload, before);
    Frames.writeString(payload, after);
    Frames.writeString(payload, receiver);
    Uvarint.write(payload, ranges.size());
    for (String range : ranges) {
      Frames.writeString(payload, range.split("\\|", -1)[0]);
      Frames.writeString(payload, range.split("\\|", -1)[1]);
    }
    return frame(0x12, 1, ByteBufUtil.getBytes(payload));
  }

  // A frame of type and id with the given payload bytes, crc and all.
  private static byte[] frame(int type, long id, byte[] payload) {
    ByteBuf body = Unpooled.buffer();
    body.writeByte(type);
    Uvarint.write(body, id);
    body.writeBytes(payload);
    ByteBuf frame = Unpooled.buffer();
    Uvarint.write(frame, body.readableBytes());
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(ByteBufUtil.getBytes(frame));
    crc.update(ByteBufUtil.getBytes(body));
    frame.writeIntLE((int) crc.getValue()).writeBytes(body);
    return ByteBufUtil.getBytes(frame);
  }

  private static void assertRefused(FrameDecoder.Side side, byte[] bytes, String reason) {
    EmbeddedChannel channel = channel(side);
    assertThatThrownBy(() -> channel.writeInbound(Unpooled.wrappedBuffer(bytes)))
        .isInstanceOf(DecoderException.class).cause().isInstanceOf(BadFrameException.class).hasMessageContaining(reason);
  }

  private static EmbeddedChannel channel(FrameDecoder.Side side) {
    return new EmbeddedChannel(new FrameDecoder(side));
  }

  private static PeerMessage roundTrip(EmbeddedChannel channel, PeerMessage message) {
    channel.writeInbound(Frames.encode(ByteBufAllocator.DEFAULT, message));
    return channel.readInbound();
  }

  private static byte[] encoded(PeerMessage message) {
    ByteBuf frame = Frames.encode(ByteBufAllocator.DEFAULT, message);
    try {
      return ByteBufUtil.getBytes(frame);
    } finally {
      frame.release();
    }
  }

  private static String hex(PeerMessage message) {
    return HexFormat.of().formatHex(encoded(message));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
