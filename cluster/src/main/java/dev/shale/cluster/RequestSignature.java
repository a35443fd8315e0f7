package dev.shale.cluster;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature of requests between the nodes of a cluster that share a secret (format and
 * reasons: docs/design.md, "Internode authentication"):
 *
 * <pre>{@code X-Shale-Internal: v2 <sender> <receiver> <sequence> <millis> <mac>}</pre>
 *
 * <p>{@code sender} and {@code receiver} are node ids as in the {@code --cluster} list;
 * {@code sequence} counts the sender's requests to that receiver, from the sender's start time
 * in microseconds; {@code millis} is the sender's wall clock; {@code mac} is HMAC-SHA256 under
 * the secret, base64url without padding, over those fields and the {@link SignedContent}.
 *
 * <p>A receiver accepts a request only if it names this node as the receiver and a node of the
 * list as the sender, the MAC matches, the time is within {@link InternalAuth#MAX_SKEW_MILLIS}
 * of its clock and not before this node started, and the sequence number is new in the sender's
 * {@link ReplayWindow}. Memory is fixed: one counter and one window per node of the list.
 *
 * <p>Thread safe.
 */
final class RequestSignature {
  static final String VERSION = "v2";
  private static final String ALGORITHM = "HmacSHA256";
  private static final String FORMAT = "'" + VERSION + " <sender> <receiver> <sequence> <millis> <mac>'";

  // Mac instances are not thread safe; event loops each get their own.
  private final ThreadLocal<Mac> macs;
  private final String self;
  private final long startMillis;
  // Both keyed by node id, over every node of the list, this one included: a node never sends to
  // itself, so its own id is free for a tool that holds the secret and reads this node's store.
  private final Map<String, AtomicLong> nextSequence = new HashMap<>(); // by receiver; fixed keys
  private final Map<String, ReplayWindow> windows = new HashMap<>(); // by sender; fixed keys

  RequestSignature(byte[] secret, Topology topology, long startMillis) {
    SecretKeySpec key = new SecretKeySpec(secret, ALGORITHM);
    this.macs = ThreadLocal.withInitial(() -> newMac(key));
    this.self = topology.self().id();
    this.startMillis = startMillis;
    // From the start time in microseconds: a restarted sender continues above the numbers it
    // used before, unless it sent more than one request per microsecond since its last start.
    long firstSequence = Math.multiplyExact(startMillis, 1000);
    for (NodeAddress node : topology.nodes()) {
      nextSequence.put(node.id(), new AtomicLong(firstSequence));
      windows.put(node.id(), new ReplayWindow());
    }
  }

  String sign(SignedContent content, NodeAddress receiver, long nowMillis) {
    AtomicLong sequences = nextSequence.get(receiver.id());
    if (sequences == null) throw new IllegalArgumentException(receiver + " is not a node of this cluster");
    long sequence = sequences.getAndIncrement();
    return VERSION + " " + self + " " + receiver.id() + " " + sequence + " " + nowMillis + " "
        + mac(content, self, receiver.id(), sequence, nowMillis);
  }

  /** Why {@code header} on a request of {@code content} must be refused; or its sender's id. */
  InternalAuth.Verdict verify(Supplier<SignedContent> content, String header, long nowMillis) {
    String[] parts = header.split(" ", -1);
    if (parts[0].equals("v1")) {
      return refused("signature v1 is not taken: this node signs and checks " + VERSION
          + " (the nodes of a cluster must all run the same build)");
    }
    if (parts.length != 6 || !parts[0].equals(VERSION)) return refused(InternalAuth.HEADER + " is not " + FORMAT);
    String sender = parts[1];
    String receiver = parts[2];
    ReplayWindow window = windows.get(sender);
    if (window == null) return refused("unknown sender '" + sender + "': not a node of this node's --cluster list");
    if (!receiver.equals(self)) {
      return refused("it is addressed to " + receiver + ", not to this node (" + self
          + "): a request signed for one node is not taken by another");
    }
    long sequence = parseNonNegative(parts[3]);
    long sentMillis = parseNonNegative(parts[4]);
    if (sequence < 0 || sentMillis < 0) return refused(InternalAuth.HEADER + " has no valid sequence number or time: " + FORMAT);
    byte[] expected = mac(content.get(), sender, receiver, sequence, sentMillis).getBytes(StandardCharsets.US_ASCII);
    if (!MessageDigest.isEqual(expected, parts[5].getBytes(StandardCharsets.US_ASCII))) {
      return refused(InternalAuth.HEADER + " signature does not match (wrong cluster secret, or a forged or altered request)");
    }
    // Checked after the MAC, so what an attacker learns of clocks and windows is only about
    // genuine requests, and only genuine requests take a place in a window.
    long skewMillis = Math.abs(nowMillis - sentMillis);
    if (skewMillis > InternalAuth.MAX_SKEW_MILLIS) {
      return refused(InternalAuth.HEADER + " is stale: sent " + skewMillis + " ms from this node's clock (at most "
          + InternalAuth.MAX_SKEW_MILLIS + " ms; are the nodes' clocks in sync?)");
    }
    if (sentMillis < startMillis) {
      return refused("it was signed at " + sentMillis + ", before this node started at " + startMillis
          + ": a request from before a restart is not taken again");
    }
    Optional<String> replay = window.accept(sequence, sentMillis, nowMillis);
    if (replay.isPresent()) return refused(replay.get());
    return new InternalAuth.Verdict.Accepted(sender);
  }

  private static InternalAuth.Verdict refused(String reason) {
    return new InternalAuth.Verdict.Refused(reason);
  }

  private String mac(SignedContent content, String sender, String receiver, long sequence, long millis) {
    Mac mac = macs.get();
    String fields = VERSION + "\n" + sender + "\n" + receiver + "\n" + sequence + "\n" + millis + "\n";
    mac.update(fields.getBytes(StandardCharsets.UTF_8));
    byte[] tag = mac.doFinal(content.canonical());
    return Base64.getUrlEncoder().withoutPadding().encodeToString(tag);
  }

  // -1 unless text is a decimal long >= 0.
  private static long parseNonNegative(String text) {
    if (text.isEmpty() || text.length() > 19 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) return -1;
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static Mac newMac(SecretKeySpec key) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 is not available in this JDK", e);
    }
  }
}
