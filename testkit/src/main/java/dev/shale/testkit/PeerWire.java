package dev.shale.testkit;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.zip.CRC32C;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * A peer connection to a node, written for tests from docs/format.md ("Internode protocol")
 * alone, with none of the node's code: plain blocking sockets, {@link CRC32C}, HMAC-SHA256. A
 * drift between the spec and the node's codec shows as a test failing here.
 *
 * <p>Raw ({@link #send(int, long, byte[])}, {@link #sendBytes}, {@link #receive}) for tests that
 * send what no node would; {@link #read} and {@link #write} for tests that need what one node
 * alone holds, or a replica write with a version of their choosing.
 *
 * <p>Not thread safe: one test thread drives it.
 */
public final class PeerWire implements AutoCloseable {
  /** Do not change: the protocol's constants, version 1. */
  public static final byte[] PREFACE = {(byte) 0x89, 'S', 'H', 'A', 'L', 'E', '\r', '\n'};
  public static final int PROTOCOL_VERSION = 4;
  public static final int HELLO = 0x01, CHALLENGE = 0x02, PROOF = 0x03, REFUSED = 0x04, READY = 0x05;
  public static final int READ = 0x10, WRITE = 0x11, SCAN = 0x12, TREE = 0x13, DIGESTS = 0x14, CLOCK_ASK = 0x15;
  public static final int VALUE = 0x20, TOMBSTONE = 0x21, ABSENT = 0x22, STORED = 0x23, FAILED = 0x24, SCAN_DATA = 0x25, LEAVES = 0x26;
  public static final int EXPIRING_VALUE = 0x27, CLOCK = 0x28;
  public static final int MODE_SECRET = 0, MODE_TRUSTED = 1;
  private static final byte[] SERVER_LABEL = "shale-peer-v1 server".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CLIENT_LABEL = "shale-peer-v1 client".getBytes(StandardCharsets.US_ASCII);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A frame as received: its type, id and payload. */
  public record Frame(int type, long id, byte[] payload) {}

  /** The answer to a {@link #read} or {@link #write}. */
  public sealed interface Reply {
    /** A value, from VALUE, or from EXPIRING_VALUE with its {@code expiresAtMillis} (else 0). */
    record Value(long version, byte[] value, long expiresAtMillis) implements Reply {
      public Value(long version, byte[] value) {
        this(version, value, 0);
      }
    }

    record Tombstone(long version) implements Reply {}

    record Absent() implements Reply {}

    record Stored() implements Reply {}

    record Failed(int code, String reason) implements Reply {}

    /** The node's wall clock, from CLOCK. */
    record Clock(long wallMillis) implements Reply {}
  }

  /** The node refused the handshake (REFUSED with its reason, or it closed the connection: reason null). */
  public static final class Refused extends IOException {
    private final @Nullable String reason;

    Refused(@Nullable String reason) {
      super(reason == null ? "the node closed the connection during the handshake" : "refused: " + reason);
      this.reason = reason;
    }

    public @Nullable String reason() {
      return reason;
    }
  }

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private long nextId = 1;

  private PeerWire(Socket socket) throws IOException {
    this.socket = socket;
    this.in = socket.getInputStream();
    this.out = socket.getOutputStream();
  }

  /** A TCP connection to the node at {@code port} on loopback; nothing sent yet. */
  public static PeerWire connect(int port) throws IOException {
    Socket socket = new Socket();
    try {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(15_000); // a node that never answers fails the test, not hangs it
      return new PeerWire(socket);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /**
   * A connection authenticated as node {@code sender} (an id {@code host:port}, a member of the
   * receiver's cluster map) to {@code receiver}: preface, HELLO, the server's proof checked, PROOF, READY.
   *
   * @param secret the cluster secret; null on a trusted network (mode 1)
   * @throws Refused if the node refuses
   */
  public static PeerWire open(int port, byte @Nullable [] secret, String sender, String receiver)
      throws IOException {
    return handshake(connect(port), secret, sender, receiver);
  }

  /**
   * As {@link #open(int, byte[], String, String)}, over {@code connected}, a socket already
   * connected (a TLS socket, say, for a node whose peers must come over TLS).
   */
  public static PeerWire open(Socket connected, byte @Nullable [] secret, String sender, String receiver) throws IOException {
    connected.setSoTimeout(15_000);
    return handshake(new PeerWire(connected), secret, sender, receiver);
  }

  private static PeerWire handshake(PeerWire wire, byte @Nullable [] secret, String sender, String receiver) throws IOException {
    try {
      wire.sendBytes(PREFACE);
      byte[] hello = hello(PROTOCOL_VERSION, secret == null ? MODE_TRUSTED : MODE_SECRET, sender, receiver, 0, nonce());
      wire.send(HELLO, 0, hello);
      byte[] serverNonce = wire.challenge(secret, hello);
      wire.send(PROOF, 0, bytes(secret == null ? new byte[0] : proof(secret, CLIENT_LABEL, hello, serverNonce)));
      Frame ready = wire.receive();
      if (ready == null || ready.type() != READY) throw refusal(ready);
      return wire;
    } catch (IOException | RuntimeException e) {
      wire.close();
      throw e;
    }
  }

  /**
   * Reads the CHALLENGE to {@code hello} and checks the server's proof; its nonce.
   *
   * @throws Refused on REFUSED or a close
   * @throws IOException if the server cannot prove the secret
   */
  public byte[] challenge(byte @Nullable [] secret, byte[] hello) throws IOException {
    Frame frame = receive();
    if (frame == null || frame.type() != CHALLENGE) throw refusal(frame);
    Payload payload = new Payload(frame.payload());
    byte[] serverNonce = payload.bytes();
    byte[] serverProof = payload.bytes();
    payload.end();
    if (secret != null && !MessageDigest.isEqual(proof(secret, SERVER_LABEL, hello, serverNonce), serverProof)) {
      throw new IOException("the node cannot prove the cluster secret");
    }
    return serverNonce;
  }

  /** The PROOF payload of a client that sent {@code hello} and got {@code serverNonce}. */
  public static byte[] clientProof(byte[] secret, byte[] hello, byte[] serverNonce) {
    return bytes(proof(secret, CLIENT_LABEL, hello, serverNonce));
  }

  /** A HELLO payload; {@code mapVersion} is the sender's cluster map version (any is taken). */
  public static byte[] hello(int protocolVersion, int mode, String sender, String receiver, long mapVersion, byte[] clientNonce) {
    ByteArrayOutputStream payload = new ByteArrayOutputStream();
    writeUvarint(payload, protocolVersion);
    payload.write(mode);
    payload.writeBytes(string(sender));
    payload.writeBytes(string(receiver));
    writeUvarint(payload, mapVersion);
    payload.writeBytes(bytes(clientNonce));
    return payload.toByteArray();
  }

  public static byte[] nonce() {
    byte[] nonce = new byte[32];
    RANDOM.nextBytes(nonce);
    return nonce;
  }

  /**
   * The map version this wire's reads and writes carry: newer than any node's, so that no node's
   * map fence refuses them (a coordinator whose map is ahead of a replica's is served).
   */
  public static final long NEWEST_MAP = Long.MAX_VALUE;

  /** Asks for the node's wall clock: CLOCK_ASK. */
  public Reply clock() throws IOException {
    return call(CLOCK_ASK, new byte[0]);
  }

  /** Reads {@code key}'s newest record in the node's own store. */
  public Reply read(byte[] key) throws IOException {
    return read(key, NEWEST_MAP);
  }

  /** Reads {@code key}'s newest record in the node's own store, as a coordinator with cluster map {@code mapVersion}. */
  public Reply read(byte[] key, long mapVersion) throws IOException {
    ByteArrayOutputStream payload = new ByteArrayOutputStream();
    writeUvarint(payload, mapVersion);
    payload.writeBytes(bytes(key));
    return call(READ, payload.toByteArray());
  }

  /** Stores a record of {@code key} with {@code version}: {@code value}, or a tombstone if it is null. */
  public Reply write(byte[] key, byte @Nullable [] value, long version) throws IOException {
    return write(key, value, version, NEWEST_MAP);
  }

  /** As {@link #write(byte[], byte[], long)}, as a coordinator with cluster map {@code mapVersion}. */
  public Reply write(byte[] key, byte @Nullable [] value, long version, long mapVersion) throws IOException {
    return call(WRITE, writePayload(mapVersion, version, value == null ? 1 : 0, key, value == null ? new byte[0] : value));
  }

  /** A WRITE's payload with any {@code flags} (bit 0: a tombstone; a test may set undefined ones). */
  public static byte[] writePayload(long version, int flags, byte[] key, byte[] value) {
    return writePayload(NEWEST_MAP, version, flags, key, value);
  }

  /** A WRITE's payload as a coordinator with cluster map {@code mapVersion}. */
  public static byte[] writePayload(long mapVersion, long version, int flags, byte[] key, byte[] value) {
    ByteArrayOutputStream payload = new ByteArrayOutputStream();
    writeUvarint(payload, mapVersion);
    payload.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(version).array());
    payload.write(flags);
    payload.writeBytes(bytes(key));
    payload.writeBytes(bytes(value));
    return payload.toByteArray();
  }

  private Reply call(int type, byte[] payload) throws IOException {
    long id = nextId++;
    send(type, id, payload);
    Frame answer = receive();
    if (answer == null) throw new EOFException("the node closed the connection instead of answering request " + id);
    if (answer.id() != id) throw new IOException("an answer to request " + answer.id() + ", not " + id);
    Payload in = new Payload(answer.payload());
    Reply reply = switch (answer.type()) {
      case VALUE -> new Reply.Value(in.u64(), in.bytes());
      case EXPIRING_VALUE -> {
        long version = in.u64();
        long expiresAtMillis = in.u64();
        yield new Reply.Value(version, in.bytes(), expiresAtMillis);
      }
      case TOMBSTONE -> new Reply.Tombstone(in.u64());
      case ABSENT -> new Reply.Absent();
      case STORED -> new Reply.Stored();
      case FAILED -> new Reply.Failed(in.u8(), new String(in.bytes(), StandardCharsets.UTF_8));
      case CLOCK -> new Reply.Clock(in.u64());
      default -> throw new IOException("an answer of type " + answer.type());
    };
    in.end();
    return reply;
  }

  /** Sends one frame: its length, its crc, then the body (type, id, payload). */
  public PeerWire send(int type, long id, byte[] payload) throws IOException {
    return sendBytes(frame(type, id, payload));
  }

  /** The bytes of one frame, as the format lays it out. */
  public static byte[] frame(int type, long id, byte[] payload) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.write(type);
    writeUvarint(body, id);
    body.writeBytes(payload);
    ByteArrayOutputStream length = new ByteArrayOutputStream();
    writeUvarint(length, body.size());
    CRC32C crc = new CRC32C();
    crc.update(length.toByteArray());
    crc.update(body.toByteArray());
    ByteArrayOutputStream frame = new ByteArrayOutputStream();
    frame.writeBytes(length.toByteArray());
    frame.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue()).array());
    frame.writeBytes(body.toByteArray());
    return frame.toByteArray();
  }

  /** Sends {@code bytes} as they are. */
  public PeerWire sendBytes(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
    return this;
  }

  /**
   * The node's next frame; null once it closed the connection (or reset it).
   *
   * @throws IOException if the frame's crc fails
   */
  public @Nullable Frame receive() throws IOException {
    try {
      ByteArrayOutputStream lengthBytes = new ByteArrayOutputStream();
      long length = readUvarint(lengthBytes);
      if (length < 0) return null;
      byte[] crc = readFully(4);
      byte[] body = readFully(Math.toIntExact(length));
      CRC32C expected = new CRC32C();
      expected.update(lengthBytes.toByteArray());
      expected.update(body);
      if (ByteBuffer.wrap(crc).order(ByteOrder.LITTLE_ENDIAN).getInt() != (int) expected.getValue()) {
        throw new IOException("a frame whose crc fails");
      }
      Payload parsed = new Payload(body);
      int type = parsed.u8();
      long id = parsed.uvarint();
      return new Frame(type, id, parsed.rest());
    } catch (EOFException | SocketException e) {
      return null;
    }
  }

  /** Whether the node closes the connection: reads until the end, dropping any frames before it. */
  public boolean closedByNode() throws IOException {
    while (receive() != null) {
      // a REFUSED or answers before the close are fine
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  private static Refused refusal(@Nullable Frame frame) {
    if (frame == null) return new Refused(null);
    if (frame.type() != REFUSED) return new Refused("unexpected frame of type " + frame.type());
    return new Refused(new String(new Payload(frame.payload()).bytes(), StandardCharsets.UTF_8));
  }

  private static byte[] proof(byte[] secret, byte[] label, byte[] hello, byte[] serverNonce) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update(label);
      mac.update(hello);
      return mac.doFinal(serverNonce);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  // -1 at a clean end of the stream before the first byte
  private long readUvarint(ByteArrayOutputStream seen) throws IOException {
    long value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      int b = in.read();
      if (b < 0) {
        if (shift == 0) return -1;
        throw new EOFException();
      }
      seen.write(b);
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) return value;
    }
    throw new IOException("a uvarint longer than 10 bytes");
  }

  private byte[] readFully(int n) throws IOException {
    byte[] bytes = in.readNBytes(n);
    if (bytes.length < n) throw new EOFException();
    return bytes;
  }

  /** {@code uvarint}: unsigned LEB128, the shortest form. */
  public static void writeUvarint(ByteArrayOutputStream out, long value) {
    while ((value & ~0x7FL) != 0) {
      out.write((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.write((int) value);
  }

  /** {@code bytes := len:uvarint raw[len]}. */
  public static byte[] bytes(byte[] raw) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    writeUvarint(out, raw.length);
    out.writeBytes(raw);
    return out.toByteArray();
  }

  static byte[] string(String s) {
    return bytes(s.getBytes(StandardCharsets.UTF_8));
  }

  /** A payload read field by field; {@link #end} checks nothing is left. */
  private static final class Payload {
    private final byte[] bytes;
    private int at;

    Payload(byte[] bytes) {
      this.bytes = bytes;
    }

    int u8() {
      need(1);
      return bytes[at++] & 0xFF;
    }

    long u64() {
      need(8);
      long v = ByteBuffer.wrap(bytes, at, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
      at += 8;
      return v;
    }

    long uvarint() {
      long value = 0;
      for (int shift = 0; shift < 70; shift += 7) {
        int b = u8();
        value |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) return value;
      }
      throw new IllegalStateException("a uvarint longer than 10 bytes");
    }

    byte[] bytes() {
      int length = Math.toIntExact(uvarint());
      need(length);
      byte[] raw = Arrays.copyOfRange(bytes, at, at + length);
      at += length;
      return raw;
    }

    byte[] rest() {
      byte[] raw = Arrays.copyOfRange(bytes, at, bytes.length);
      at = bytes.length;
      return raw;
    }

    void end() {
      if (at != bytes.length) throw new IllegalStateException((bytes.length - at) + " bytes left over in a payload");
    }

    private void need(int n) {
      if (bytes.length - at < n) throw new IllegalStateException("a payload ends before its field");
    }
  }
}
