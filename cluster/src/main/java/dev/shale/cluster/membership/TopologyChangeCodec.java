package dev.shale.cluster.membership;

import dev.shale.cluster.NodeAddress;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link TopologyChange} as one line of UTF-8 text, the form it takes in the Raft log; the
 * grammar is in docs/format.md, "Cluster map". The words are embedded in stored logs: do not change.
 */
public final class TopologyChangeCodec {
  private TopologyChangeCodec() {}

  public static byte[] encode(TopologyChange change) {
    String line = switch (change) {
      case TopologyChange.Bootstrap b -> "bootstrap " + b.replicationFactor() + members(b.members());
      case TopologyChange.Join j -> "join " + j.address().url() + " " + j.raftAddress();
      case TopologyChange.MarkNormal n -> "normal " + n.address().url();
      case TopologyChange.MarkLeaving l -> "leaving " + l.address().url();
      case TopologyChange.MarkDead d -> "dead " + d.address().url();
      case TopologyChange.Remove r -> "remove " + r.address().url();
      case TopologyChange.Progress p -> "progress " + p.address().url() + " " + escape(p.progress());
    };
    return line.getBytes(StandardCharsets.UTF_8);
  }

  /** @throws IllegalArgumentException saying what is malformed */
  public static TopologyChange decode(byte[] bytes) {
    String line = new String(bytes, StandardCharsets.UTF_8);
    String[] words = line.split(" ", -1);
    try {
      return switch (words[0]) {
        case "bootstrap" -> bootstrap(words);
        case "join" -> new TopologyChange.Join(address(words, 1, 3), RaftAddress.check(words[2]));
        case "normal" -> new TopologyChange.MarkNormal(address(words, 1, 2));
        case "leaving" -> new TopologyChange.MarkLeaving(address(words, 1, 2));
        case "dead" -> new TopologyChange.MarkDead(address(words, 1, 2));
        case "remove" -> new TopologyChange.Remove(address(words, 1, 2));
        case "progress" -> new TopologyChange.Progress(address(words, 1, 3), unescape(words[2]));
        default -> throw new IllegalArgumentException("unknown change '" + words[0] + "'");
      };
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("malformed topology change '" + line + "': " + e.getMessage(), e);
    }
  }

  private static TopologyChange bootstrap(String[] words) {
    if (words.length < 3) throw new IllegalArgumentException("a bootstrap names at least one member");
    List<Member> members = new ArrayList<>();
    for (int i = 2; i < words.length; i++) {
      int eq = words[i].indexOf('=');
      if (eq < 0) throw new IllegalArgumentException("'" + words[i] + "' is not <url>=<raft address>");
      members.add(new Member(NodeAddress.parse(words[i].substring(0, eq)), words[i].substring(eq + 1), MemberState.NORMAL, ""));
    }
    return new TopologyChange.Bootstrap(members, Integer.parseInt(words[1]));
  }

  private static String members(List<Member> members) {
    StringBuilder text = new StringBuilder();
    for (Member m : members) text.append(' ').append(m.address().url()).append('=').append(m.raftAddress());
    return text.toString();
  }

  private static NodeAddress address(String[] words, int at, int length) {
    if (words.length != length) throw new IllegalArgumentException("expected " + length + " words, got " + words.length);
    return NodeAddress.parse(words[at]);
  }

  /** Progress text percent-encoded, so that it is one word ("" stays ""). */
  static String escape(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

  static String unescape(String word) {
    return URLDecoder.decode(word, StandardCharsets.UTF_8);
  }
}
