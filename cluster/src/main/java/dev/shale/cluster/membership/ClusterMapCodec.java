package dev.shale.cluster.membership;

import dev.shale.cluster.NodeAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A whole {@link ClusterMap} as UTF-8 text: the Raft snapshot of the map (docs/format.md,
 * "Cluster map"). The map is small (a line per member), so a snapshot writes it whole.
 * The header and words are embedded in stored snapshots: do not change.
 */
public final class ClusterMapCodec {
  /** The first line of a snapshot; the number is the format's version. */
  static final String HEADER = "shale-cluster-map 2";
  /** The header of the maps written before the placement version was kept: still read. */
  static final String HEADER_1 = "shale-cluster-map 1";
  /** The state word of a dead leaving member ({@link Member#dead}); the others are {@link MemberState#wireName}. */
  static final String DEAD = "dead";

  private ClusterMapCodec() {}

  public static byte[] encode(ClusterMap map) {
    StringBuilder text = new StringBuilder(HEADER).append('\n')
        .append("version ").append(map.version()).append('\n')
        .append("placement-version ").append(map.placementVersion()).append('\n')
        .append("replication-factor ").append(map.replicationFactor()).append('\n');
    for (Member m : map.members()) {
      text.append("member ").append(m.address().url()).append(' ').append(m.raftAddress()).append(' ')
          .append(m.dead() ? DEAD : m.state().wireName()).append(' ')
          .append(TopologyChangeCodec.escape(m.progress())).append('\n');
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** @throws IllegalArgumentException saying what is malformed */
  public static ClusterMap decode(byte[] bytes) {
    String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
    boolean first = lines.length >= 4 && lines[0].equals(HEADER_1);
    if (lines.length < 5 && !first || !(first || lines[0].equals(HEADER)) || !lines[lines.length - 1].isEmpty()) {
      throw new IllegalArgumentException("not a cluster map (expected '" + HEADER + "' and whole lines)");
    }
    try {
      int line = 1;
      long version = Long.parseLong(value(lines[line++], "version"));
      // Version 1 has no placement version: its own version, never earlier than the true one.
      long placementVersion = first ? version : Long.parseLong(value(lines[line++], "placement-version"));
      int replicationFactor = Integer.parseInt(value(lines[line++], "replication-factor"));
      List<Member> members = new ArrayList<>();
      for (int i = line; i < lines.length - 1; i++) members.add(member(lines[i]));
      return new ClusterMap(version, placementVersion, members, replicationFactor);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("malformed cluster map: " + e.getMessage(), e);
    }
  }

  private static Member member(String line) {
    String[] words = line.split(" ", -1);
    // Four words: an empty progress whose separating space was trimmed in transit (an HTTP answer's end).
    if ((words.length != 5 && words.length != 4) || !words[0].equals("member")) {
      throw new IllegalArgumentException("bad member line '" + line + "'");
    }
    String progress = words.length == 5 ? TopologyChangeCodec.unescape(words[4]) : "";
    boolean dead = words[3].equals(DEAD);
    MemberState state = dead ? MemberState.LEAVING : MemberState.ofWireName(words[3]);
    return new Member(NodeAddress.parse(words[1]), words[2], state, progress, dead);
  }

  private static String value(String line, String name) {
    if (!line.startsWith(name + " ")) throw new IllegalArgumentException("expected '" + name + " <n>', got '" + line + "'");
    return line.substring(name.length() + 1);
  }
}
