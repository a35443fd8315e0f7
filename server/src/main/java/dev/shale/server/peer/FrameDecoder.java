package dev.shale.server.peer;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.handoff.GainedKeys;
import dev.shale.cluster.handoff.MovedRange;
import dev.shale.cluster.handoff.PlacementChange;
import dev.shale.storage.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Cuts a peer connection's bytes into frames and decodes each into a {@link PeerMessage}
 * (docs/format.md, "Internode protocol"). A bad frame (its crc fails, its length is over the
 * limit, an unknown type or one that goes the other way, a payload that does not parse exactly)
 * is a {@link DecoderException} caused by a {@link BadFrameException}: the connection's handler
 * closes it. Holds at most one incomplete frame, up to the limit.
 *
 * <p>Confined to the channel's event loop.
 */
final class FrameDecoder extends ByteToMessageDecoder {
  /** Which end of the connection this is: what it may receive. */
  enum Side {
    /** The accepting node: receives the client's handshake frames and requests. */
    SERVER,
    /** The connecting node: receives the server's handshake frames and answers. */
    CLIENT
  }

  private final Side side;
  private int maxFrameBytes = Frames.MAX_HANDSHAKE_FRAME_BYTES;
  private final int[] lengthSize = new int[1];

  FrameDecoder(Side side) {
    this.side = side;
  }

  /** The handshake ended: frames may now be as long as {@code maxFrameBytes}. */
  void authenticated(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws BadFrameException {
    int start = in.readerIndex();
    long length = Uvarint.peekInt(in, start, lengthSize);
    if (length == Uvarint.NEED_MORE) return;
    if (length == Uvarint.MALFORMED) throw new BadFrameException("a frame's length is no varint of at most 5 bytes");
    if (length > maxFrameBytes) throw new BadFrameException("a frame of " + length + " bytes, over the limit of " + maxFrameBytes);
    if (length < 2) throw new BadFrameException("a frame of " + length + " bytes cannot hold a type and an id");
    int lengthBytes = lengthSize[0];
    int bodyStart = start + lengthBytes + 4;
    if (in.writerIndex() - bodyStart < length) return;
    int bodyBytes = (int) length;
    CRC32C crc = new CRC32C();
    crc.update(in.nioBuffer(start, lengthBytes));
    crc.update(in.nioBuffer(bodyStart, bodyBytes));
    int expected = in.getIntLE(start + lengthBytes);
    if ((int) crc.getValue() != expected) throw new BadFrameException("a frame fails its crc");
    ByteBuf body = in.slice(bodyStart, bodyBytes);
    in.readerIndex(bodyStart + bodyBytes);
    out.add(parse(body));
  }

  private PeerMessage parse(ByteBuf body) throws BadFrameException {
    int type = body.readUnsignedByte();
    long id = Uvarint.readLong(body);
    PeerMessage message = side == Side.SERVER ? parseFromClient(type, id, body) : parseFromServer(type, id, body);
    if (body.isReadable()) {
      if (message instanceof PeerMessage.ScanData data) data.data().release();
      throw new BadFrameException("a frame of type 0x" + Integer.toHexString(type) + " has " + body.readableBytes()
          + " bytes after its payload");
    }
    if (message instanceof PeerMessage.Handshake && id != 0) {
      throw new BadFrameException("a handshake frame with id " + Long.toUnsignedString(id) + ", not 0");
    }
    return message;
  }

  private static PeerMessage parseFromClient(int type, long id, ByteBuf body) throws BadFrameException {
    return switch (type) {
      case PeerMessage.Hello.TYPE -> hello(body);
      case PeerMessage.Proof.TYPE -> new PeerMessage.Proof(bytes(body));
      case PeerMessage.Read.TYPE -> new PeerMessage.Read(id, Uvarint.readLong(body), bytes(body));
      case PeerMessage.Write.TYPE -> write(id, body);
      case PeerMessage.Scan.TYPE -> scan(id, body);
      case PeerMessage.Tree.TYPE -> new PeerMessage.Tree(id, unsignedByte(body), unsignedByte(body), string(body), unsignedByte(body), bytes(body));
      case PeerMessage.Digests.TYPE ->
          new PeerMessage.Digests(id, unsignedByte(body), unsignedByte(body), string(body), bytes(body), unsignedByte(body), bytes(body));
      case PeerMessage.ClockAsk.TYPE -> new PeerMessage.ClockAsk(id);
      default -> throw new BadFrameException(unexpected(type, "a server"));
    };
  }

  private static PeerMessage parseFromServer(int type, long id, ByteBuf body) throws BadFrameException {
    return switch (type) {
      case PeerMessage.Challenge.TYPE -> new PeerMessage.Challenge(bytes(body), bytes(body));
      case PeerMessage.Refused.TYPE -> new PeerMessage.Refused(string(body));
      case PeerMessage.Ready.TYPE -> new PeerMessage.Ready();
      case PeerMessage.Value.TYPE -> {
        long version = fixedLong(body);
        yield new PeerMessage.Value(id, version, Unpooled.wrappedBuffer(bytes(body)));
      }
      case PeerMessage.Value.EXPIRING_TYPE -> {
        long version = fixedLong(body);
        long expiresAtMillis = expiry(body, "a VALUE");
        yield new PeerMessage.Value(id, version, Unpooled.wrappedBuffer(bytes(body)), expiresAtMillis);
      }
      case PeerMessage.Tombstone.TYPE -> new PeerMessage.Tombstone(id, fixedLong(body));
      case PeerMessage.Absent.TYPE -> new PeerMessage.Absent(id);
      case PeerMessage.Stored.TYPE -> new PeerMessage.Stored(id);
      case PeerMessage.Failed.TYPE -> {
        int code = unsignedByte(body);
        yield new PeerMessage.Failed(id, code, string(body));
      }
      case PeerMessage.ScanData.TYPE -> {
        int length = length(body);
        yield new PeerMessage.ScanData(id, body.readRetainedSlice(length));
      }
      case PeerMessage.Leaves.TYPE -> leaves(id, body);
      case PeerMessage.Clock.TYPE -> new PeerMessage.Clock(id, fixedLong(body));
      default -> throw new BadFrameException(unexpected(type, "a client"));
    };
  }

  private static String unexpected(int type, String receiver) {
    return "a frame of type 0x" + Integer.toHexString(type) + ", which is no frame " + receiver + " receives";
  }

  private static PeerMessage.Hello hello(ByteBuf body) throws BadFrameException {
    int from = body.readerIndex();
    long version = Uvarint.readLong(body);
    int mode = unsignedByte(body);
    String sender = string(body);
    String receiver = string(body);
    long mapVersion = Uvarint.readLong(body);
    byte[] nonce = bytes(body);
    byte[] payload = new byte[body.readerIndex() - from];
    body.getBytes(from, payload);
    int protocolVersion = (int) Math.min(version, Integer.MAX_VALUE);
    return new PeerMessage.Hello(protocolVersion, mode, sender, receiver, mapVersion, nonce, payload);
  }

  private static PeerMessage.Write write(long id, ByteBuf body) throws BadFrameException {
    long mapVersion = Uvarint.readLong(body);
    long version = fixedLong(body);
    int flags = unsignedByte(body);
    if ((flags & ~3) != 0) throw new BadFrameException("a WRITE with undefined flag bits 0x" + Integer.toHexString(flags));
    boolean tombstone = (flags & 1) != 0;
    boolean expiring = (flags & 2) != 0;
    if (tombstone && expiring) throw new BadFrameException("a tombstone WRITE with an expiry");
    long expiresAtMillis = expiring ? expiry(body, "a WRITE") : Entry.NEVER;
    byte[] key = bytes(body);
    byte[] value = bytes(body);
    if (tombstone && value.length > 0) throw new BadFrameException("a tombstone WRITE with " + value.length + " value bytes");
    return new PeerMessage.Write(id, mapVersion, version, key, tombstone ? null : value, expiresAtMillis);
  }

  // An expiring record's expires_at: positive, as no value expires at or before the epoch.
  private static long expiry(ByteBuf body, String frame) throws BadFrameException {
    long expiresAtMillis = fixedLong(body);
    if (expiresAtMillis <= 0) throw new BadFrameException(frame + " with expiry " + expiresAtMillis);
    return expiresAtMillis;
  }

  private static PeerMessage.Scan scan(long id, ByteBuf body) throws BadFrameException {
    int flags = unsignedByte(body);
    if ((flags & ~3) != 0) throw new BadFrameException("a SCAN with undefined flag bits 0x" + Integer.toHexString(flags));
    byte[] start = bytes(body);
    byte[] end = bytes(body);
    boolean hasEnd = (flags & 1) != 0;
    if (!hasEnd && end.length > 0) throw new BadFrameException("a SCAN without an end has " + end.length + " end bytes");
    GainedKeys gained = (flags & 2) != 0 ? gainedKeys(body) : null;
    return new PeerMessage.Scan(id, start, hasEnd ? end : null, gained);
  }

  /** A SCAN's handoff filter (docs/format.md, "Internode protocol"). */
  private static GainedKeys gainedKeys(ByteBuf body) throws BadFrameException {
    long mapVersion = Uvarint.readLong(body);
    int replicas = Uvarint.readInt(body);
    List<NodeAddress> before = nodeList(string(body));
    List<NodeAddress> after = nodeList(string(body));
    NodeAddress receiver = node(string(body));
    int count = Uvarint.readInt(body);
    // Each range takes at least 4 bytes: a count past what the frame holds is a bad frame, not a loop.
    if (count < 1 || count > body.readableBytes()) throw new BadFrameException("a handoff filter with " + count + " ranges");
    Set<MovedRange> ranges = new HashSet<>();
    for (int i = 0; i < count; i++) ranges.add(new MovedRange(Set.copyOf(nodeList(string(body))), Set.copyOf(nodeList(string(body)))));
    try {
      return new GainedKeys(PlacementChange.between(before, after, replicas, mapVersion), receiver, ranges);
    } catch (IllegalArgumentException e) {
      throw new BadFrameException("a bad handoff filter: " + e.getMessage());
    }
  }

  private static List<NodeAddress> nodeList(String ids) throws BadFrameException {
    List<NodeAddress> nodes = new ArrayList<>();
    for (String id : ids.split(",", -1)) nodes.add(node(id));
    if (new HashSet<>(nodes).size() != nodes.size()) throw new BadFrameException("a node list names a node twice: " + ids);
    return nodes;
  }

  private static NodeAddress node(String id) throws BadFrameException {
    try {
      return NodeAddress.ofId(id);
    } catch (IllegalArgumentException e) {
      throw new BadFrameException("a bad node id '" + id + "': " + e.getMessage());
    }
  }

  private static PeerMessage.Leaves leaves(long id, ByteBuf body) throws BadFrameException {
    int first = Uvarint.readInt(body);
    int length = length(body);
    if (length % 8 != 0 || length > PeerMessage.Leaves.MAX_HASHES * 8) {
      throw new BadFrameException("a LEAVES frame with " + length + " bytes of hashes (whole u64s, at most "
          + PeerMessage.Leaves.MAX_HASHES + ")");
    }
    long[] hashes = new long[length / 8];
    for (int i = 0; i < hashes.length; i++) hashes[i] = body.readLongLE();
    return new PeerMessage.Leaves(id, first, hashes);
  }

  private static int unsignedByte(ByteBuf body) throws BadFrameException {
    if (!body.isReadable()) throw new BadFrameException("a field runs past the end of its frame");
    return body.readUnsignedByte();
  }

  private static long fixedLong(ByteBuf body) throws BadFrameException {
    if (body.readableBytes() < 8) throw new BadFrameException("a version runs past the end of its frame");
    return body.readLongLE();
  }

  private static int length(ByteBuf body) throws BadFrameException {
    int length = Uvarint.readInt(body);
    if (length > body.readableBytes()) throw new BadFrameException("a field of " + length + " bytes runs past the end of its frame");
    return length;
  }

  private static byte[] bytes(ByteBuf body) throws BadFrameException {
    byte[] bytes = new byte[length(body)];
    body.readBytes(bytes);
    return bytes;
  }

  private static String string(ByteBuf body) throws BadFrameException {
    return new String(bytes(body), StandardCharsets.UTF_8);
  }
}
