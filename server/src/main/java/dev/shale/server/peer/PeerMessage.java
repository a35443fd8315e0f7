package dev.shale.server.peer;

import dev.shale.cluster.handoff.GainedKeys;
import dev.shale.storage.Entry;
import io.netty.buffer.ByteBuf;
import org.jspecify.annotations.Nullable;

/**
 * The frames of the internode protocol, decoded (docs/format.md, "Internode protocol"): the
 * handshake's, a client's requests and a server's answers. Each type code is the protocol's:
 * do not change one.
 */
public sealed interface PeerMessage {
  /** The frame's id: 0 in the handshake, the request's in a request and its answer. */
  long id();

  /** The frame's type byte. */
  int type();

  /** The handshake's frames: all with id 0. */
  sealed interface Handshake extends PeerMessage {
    @Override
    default long id() {
      return 0;
    }
  }

  /** A client's request, with an id of 1 or more. */
  sealed interface Request extends PeerMessage {}

  /** A server's answer to the request of the same id. */
  sealed interface Answer extends PeerMessage {}

  /**
   * The client's opening. {@code payload} is the frame's payload as sent or received: the proofs
   * cover it whole.
   */
  record Hello(int protocolVersion, int mode, String sender, String receiver, long mapVersion, byte[] clientNonce, byte[] payload)
      implements Handshake {
    static final int TYPE = 0x01;

    @Override
    public int type() {
      return TYPE;
    }
  }

  record Challenge(byte[] serverNonce, byte[] serverProof) implements Handshake {
    static final int TYPE = 0x02;

    @Override
    public int type() {
      return TYPE;
    }
  }

  record Proof(byte[] clientProof) implements Handshake {
    static final int TYPE = 0x03;

    @Override
    public int type() {
      return TYPE;
    }
  }

  record Refused(String reason) implements Handshake {
    static final int TYPE = 0x04;

    @Override
    public int type() {
      return TYPE;
    }
  }

  record Ready() implements Handshake {
    static final int TYPE = 0x05;

    @Override
    public int type() {
      return TYPE;
    }
  }

  /**
   * A replica read of {@code key}; {@code mapVersion}: of the cluster map the coordinator named
   * this replica with (a replica whose placement is newer refuses it).
   */
  record Read(long id, long mapVersion, byte[] key) implements Request {
    static final int TYPE = 0x10;

    @Override
    public int type() {
      return TYPE;
    }
  }

  /**
   * A record to store with the coordinator's version; {@code value} null: a tombstone. {@code
   * mapVersion}: as for {@link Read}. {@code expiresAtMillis}: the value's expiry as the
   * coordinator stamped it, or {@link Entry#NEVER} (flag bit 1 of the frame: docs/format.md).
   */
  record Write(long id, long mapVersion, long version, byte[] key, byte @Nullable [] value, long expiresAtMillis)
      implements Request {
    static final int TYPE = 0x11;

    /** A record that never expires. */
    Write(long id, long mapVersion, long version, byte[] key, byte @Nullable [] value) {
      this(id, mapVersion, version, key, value, Entry.NEVER);
    }

    @Override
    public int type() {
      return TYPE;
    }
  }

  /**
   * The internal scan stream of {@code [start, end)}; {@code end} null: to the last key; {@code
   * gained} null: every key, else only those a handoff pulls.
   */
  record Scan(long id, byte[] start, byte @Nullable [] end, @Nullable GainedKeys gained) implements Request {
    static final int TYPE = 0x12;

    @Override
    public int type() {
      return TYPE;
    }
  }

  /**
   * A repair's request for the receiver's tree of the range it shares with {@code other} under
   * {@code replicas} copies, with {@code 2^leafBits} leaves (docs/format.md, "Repair requests"):
   * the whole tree ({@code subBits} 0, {@code leaves} empty), or the {@code 2^subBits} sub-leaves
   * of each leaf the bitmap {@code leaves} selects.
   */
  record Tree(long id, int replicas, int leafBits, String other, int subBits, byte[] leaves) implements Request {
    static final int TYPE = 0x13;

    @Override
    public int type() {
      return TYPE;
    }
  }

  /**
   * A repair's request for the digests (records without values) of the range shared with
   * {@code other}, in the leaves {@code leaves} (a bitmap) selects, and with {@code subBits} over
   * 0 in the sub-leaves {@code masks} select of each.
   */
  record Digests(long id, int replicas, int leafBits, String other, byte[] leaves, int subBits, byte[] masks) implements Request {
    static final int TYPE = 0x14;

    @Override
    public int type() {
      return TYPE;
    }
  }

  /** Asks for the receiver's wall clock (docs/design.md, "Clock offsets"); answered with {@link Clock}. */
  record ClockAsk(long id) implements Request {
    static final int TYPE = 0x15;

    @Override
    public int type() {
      return TYPE;
    }
  }

  /** The receiver's wall clock, in milliseconds since the epoch, read as it answered a {@link ClockAsk}. */
  record Clock(long id, long wallMillis) implements Answer {
    static final int TYPE = 0x28;

    @Override
    public int type() {
      return TYPE;
    }
  }

  /** Part of a TREE's answer: the hashes of the leaves {@code first}, {@code first + 1}... */
  record Leaves(long id, int first, long[] hashes) implements Answer {
    static final int TYPE = 0x26;
    /** Hashes per LEAVES frame at most: 32 KiB, within any node's frame limit. */
    public static final int MAX_HASHES = 4096;

    @Override
    public int type() {
      return TYPE;
    }
  }

  /**
   * A value with its version. {@code value} is owned by the message: the encoder writes and
   * releases it (a lent value's lease ends then); a decoded one is an unpooled heap buffer.
   */
  record Value(long id, long version, ByteBuf value, long expiresAtMillis) implements Answer {
    static final int TYPE = 0x20;
    /** A value with an expiry: VALUE's fields with {@code expires_at:u64} after the version. */
    static final int EXPIRING_TYPE = 0x27;

    /** A value that never expires. */
    Value(long id, long version, ByteBuf value) {
      this(id, version, value, Entry.NEVER);
    }

    @Override
    public int type() {
      return expiresAtMillis == Entry.NEVER ? TYPE : EXPIRING_TYPE;
    }
  }

  record Tombstone(long id, long version) implements Answer {
    static final int TYPE = 0x21;

    @Override
    public int type() {
      return TYPE;
    }
  }

  record Absent(long id) implements Answer {
    static final int TYPE = 0x22;

    @Override
    public int type() {
      return TYPE;
    }
  }

  record Stored(long id) implements Answer {
    static final int TYPE = 0x23;

    @Override
    public int type() {
      return TYPE;
    }
  }

  /** A request not done; {@code code} one of the FAILED codes below. */
  record Failed(long id, int code, String reason) implements Answer {
    static final int TYPE = 0x24;
    /** The request is wrong (a bad key, a request not served here). */
    public static final int REFUSED = 1;
    /** The node cannot take it now (busy, shutting down, its clock fenced): retry later. */
    public static final int OVERLOADED = 2;
    /** The store failed (a full disk, corruption, an I/O error); any unknown code reads as this. */
    public static final int STORAGE_FAILED = 3;
    /** A value over the receiver's --max-value-size. */
    public static final int TOO_LARGE = 4;
    /**
     * A write whose version is beyond the version-skew bound of a receiver whose own clock is
     * within the cluster's: it never will be stored, so no hint of it is kept.
     */
    public static final int TOO_FAR_AHEAD = 5;

    @Override
    public int type() {
      return TYPE;
    }
  }

  /**
   * The next piece of a scan's stream (docs/format.md, "Internal scan stream"). {@code data} is
   * owned by the message: whoever takes it releases it (the encoder, or the reader).
   */
  record ScanData(long id, ByteBuf data) implements Answer {
    static final int TYPE = 0x25;

    @Override
    public int type() {
      return TYPE;
    }
  }
}
