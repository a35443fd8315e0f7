package dev.shale.server.peer;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.handoff.GainedKeys;
import dev.shale.cluster.handoff.MovedRange;
import dev.shale.cluster.handoff.NodeIds;
import dev.shale.cluster.handoff.PlacementChange;
import dev.shale.storage.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * Writes the frames of the internode protocol (docs/format.md, "Internode protocol"):
 * {@code length:uvarint crc:u32 body}, the body {@code type:u8 id:uvarint payload}, the crc a
 * crc32c of the length's bytes and the body.
 */
final class Frames {
  /** The bytes that open a peer connection, client to server: "\x89SHALE\r\n". Do not change. */
  static final byte[] PREFACE = {(byte) 0x89, 'S', 'H', 'A', 'L', 'E', '\r', '\n'};
  /** The limit of a frame's length until the handshake ended: nothing larger is legitimate then. */
  static final int MAX_HANDSHAKE_FRAME_BYTES = 64 * 1024;
  /** A frame's length beyond its value: a key of up to 64 KiB, ids, versions and field lengths. */
  static final int FRAME_SLACK_BYTES = 64 * 1024 + 64;

  // A smaller value is copied into the frame's buffer, a larger one written from its array.
  private static final int COPY_MAX_BYTES = 1024;
  // Room before the body for the longest length and the crc, so the frame is one buffer.
  private static final int HEAD_ROOM = Uvarint.MAX_INT_BYTES + 4;

  private Frames() {}

  /** The limit of a frame's length once a connection is authenticated. */
  static int maxFrameBytes(int maxValueBytes) {
    return (int) Math.min(Integer.MAX_VALUE, (long) maxValueBytes + FRAME_SLACK_BYTES);
  }

  /** {@code message} as one frame; a value or scan piece it owns becomes part of the result. */
  static ByteBuf encode(ByteBufAllocator alloc, PeerMessage message) {
    ByteBuf head = alloc.buffer(64);
    ByteBuf tail = null; // the value or piece the message owns, written after the head as is
    try {
      head.writerIndex(HEAD_ROOM);
      head.writeByte(message.type());
      Uvarint.write(head, message.id());
      tail = writePayload(head, message);
      return frame(alloc, head, tail);
    } catch (RuntimeException | Error e) {
      head.release();
      if (tail != null) tail.release();
      throw e;
    }
  }

  // The payload's fields into head; a value or piece owned by the message is returned, not copied.
  private static @Nullable ByteBuf writePayload(ByteBuf head, PeerMessage message) {
    switch (message) {
      case PeerMessage.Hello hello -> head.writeBytes(hello.payload());
      case PeerMessage.Challenge challenge -> {
        writeBytes(head, challenge.serverNonce());
        writeBytes(head, challenge.serverProof());
      }
      case PeerMessage.Proof proof -> writeBytes(head, proof.clientProof());
      case PeerMessage.Refused refused -> writeString(head, refused.reason());
      case PeerMessage.Ready ignored -> {}
      case PeerMessage.Read read -> {
        Uvarint.write(head, read.mapVersion());
        writeBytes(head, read.key());
      }
      case PeerMessage.Write write -> {
        Uvarint.write(head, write.mapVersion());
        head.writeLongLE(write.version());
        boolean expiring = write.expiresAtMillis() != Entry.NEVER;
        head.writeByte((write.value() == null ? 1 : 0) | (expiring ? 2 : 0));
        if (expiring) head.writeLongLE(write.expiresAtMillis());
        writeBytes(head, write.key());
        byte[] value = write.value();
        if (value == null) {
          Uvarint.write(head, 0);
          return null;
        }
        Uvarint.write(head, value.length);
        if (value.length < COPY_MAX_BYTES) {
          head.writeBytes(value);
          return null;
        }
        return Unpooled.wrappedBuffer(value); // the array does not change once written (ReplicaCalls)
      }
      case PeerMessage.Scan scan -> {
        byte[] end = scan.end();
        GainedKeys gained = scan.gained();
        head.writeByte((end == null ? 0 : 1) | (gained == null ? 0 : 2));
        writeBytes(head, scan.start());
        writeBytes(head, end == null ? new byte[0] : end);
        if (gained != null) writeGainedKeys(head, gained);
      }
      case PeerMessage.Tree tree -> {
        writeRangeOf(head, tree.replicas(), tree.leafBits(), tree.other());
        head.writeByte(tree.subBits());
        writeBytes(head, tree.leaves());
      }
      case PeerMessage.Digests digests -> {
        writeRangeOf(head, digests.replicas(), digests.leafBits(), digests.other());
        writeBytes(head, digests.leaves());
        head.writeByte(digests.subBits());
        writeBytes(head, digests.masks());
      }
      case PeerMessage.ClockAsk ignored -> {}
      case PeerMessage.Clock clock -> head.writeLongLE(clock.wallMillis());
      case PeerMessage.Leaves leaves -> {
        Uvarint.write(head, leaves.first());
        Uvarint.write(head, leaves.hashes().length * 8L);
        for (long hash : leaves.hashes()) head.writeLongLE(hash);
      }
      case PeerMessage.Value value -> {
        head.writeLongLE(value.version());
        if (value.expiresAtMillis() != Entry.NEVER) head.writeLongLE(value.expiresAtMillis());
        Uvarint.write(head, value.value().readableBytes());
        return value.value();
      }
      case PeerMessage.Tombstone tombstone -> head.writeLongLE(tombstone.version());
      case PeerMessage.Absent ignored -> {}
      case PeerMessage.Stored ignored -> {}
      case PeerMessage.Failed failed -> {
        head.writeByte(failed.code());
        writeString(head, failed.reason());
      }
      case PeerMessage.ScanData data -> {
        Uvarint.write(head, data.data().readableBytes());
        return data.data();
      }
    }
    return null;
  }

  /** Puts the length and crc before the body in {@code head} (and {@code tail}, if any). */
  private static ByteBuf frame(ByteBufAllocator alloc, ByteBuf head, @Nullable ByteBuf tail) {
    int headBodyBytes = head.writerIndex() - HEAD_ROOM;
    long bodyBytes = (long) headBodyBytes + (tail == null ? 0 : tail.readableBytes());
    if (bodyBytes > Integer.MAX_VALUE) throw new IllegalArgumentException("a frame of " + bodyBytes + " bytes");
    int lengthBytes = Uvarint.size(bodyBytes);
    int start = HEAD_ROOM - 4 - lengthBytes;
    int end = head.writerIndex();
    head.writerIndex(start);
    Uvarint.write(head, bodyBytes);
    CRC32C crc = new CRC32C();
    crc.update(head.nioBuffer(start, lengthBytes));
    crc.update(head.nioBuffer(HEAD_ROOM, headBodyBytes));
    if (tail != null) {
      for (ByteBuffer part : tail.nioBuffers()) crc.update(part);
    }
    head.writeIntLE((int) crc.getValue());
    head.setIndex(start, end);
    if (tail == null) return head;
    CompositeByteBuf frame = alloc.compositeBuffer(2);
    frame.addComponents(true, head, tail);
    return frame;
  }

  /** The fields that name a repair request's shared range and tree shape. */
  private static void writeRangeOf(ByteBuf head, int replicas, int leafBits, String other) {
    head.writeByte(replicas);
    head.writeByte(leafBits);
    writeString(head, other);
  }

  /** A HELLO with its payload as it will be sent (the proofs cover it). */
  static PeerMessage.Hello hello(int protocolVersion, int mode, String sender, String receiver, long mapVersion, byte[] clientNonce) {
    ByteBuf payload = Unpooled.buffer();
    Uvarint.write(payload, protocolVersion);
    payload.writeByte(mode);
    writeString(payload, sender);
    writeString(payload, receiver);
    Uvarint.write(payload, mapVersion);
    writeBytes(payload, clientNonce);
    byte[] bytes = new byte[payload.readableBytes()];
    payload.readBytes(bytes);
    return new PeerMessage.Hello(protocolVersion, mode, sender, receiver, mapVersion, clientNonce, bytes);
  }

  /** A SCAN's handoff filter (docs/format.md, "Internode protocol"). */
  private static void writeGainedKeys(ByteBuf out, GainedKeys gained) {
    PlacementChange change = gained.change();
    Uvarint.write(out, change.mapVersion());
    Uvarint.write(out, change.replicas());
    writeString(out, NodeIds.join(change.before().topology().nodes()));
    writeString(out, NodeIds.join(change.after().topology().nodes()));
    writeString(out, gained.receiver().id());
    Uvarint.write(out, gained.ranges().size());
    for (MovedRange range : gained.ranges()) {
      writeString(out, NodeIds.join(range.before()));
      writeString(out, NodeIds.join(range.after()));
    }
  }

  static void writeBytes(ByteBuf out, byte[] bytes) {
    Uvarint.write(out, bytes.length);
    out.writeBytes(bytes);
  }

  static void writeString(ByteBuf out, String text) {
    writeBytes(out, text.getBytes(StandardCharsets.UTF_8));
  }
}
