package dev.shale.app;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.ClusterMapCodec;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * The cluster map's admin calls to one member (README, "Joining and removing nodes"), signed by
 * its {@link AdminClient}: read the map, join, remove a member. Each answers the map the member
 * has or made, or throws {@link AdminCallException} with one line saying why not.
 */
final class TopologyCalls {
  private final AdminClient admin;

  TopologyCalls(AdminClient admin) {
    this.admin = admin;
  }

  ClusterMap map() {
    return decode(admin.get("/v0/admin/topology"));
  }

  /** Asks the member to add {@code node}, whose Raft server listens on {@code raftAddress}. */
  ClusterMap join(NodeAddress node, String raftAddress) {
    return decode(admin.post("/v0/admin/topology/join?url=" + URLEncoder.encode(node.url(), StandardCharsets.UTF_8)
        + "&raft=" + URLEncoder.encode(raftAddress, StandardCharsets.UTF_8)));
  }

  /** Asks the member to remove {@code member} ({@code dead}: at once, nothing streamed from it). */
  ClusterMap remove(NodeAddress member, boolean dead) {
    return decode(admin.post("/v0/admin/topology/remove?url=" + URLEncoder.encode(member.url(), StandardCharsets.UTF_8)
        + (dead ? "&dead=true" : "")));
  }

  private static ClusterMap decode(String answer) {
    // The map's text form ends every line with a newline; AdminClient strips the answer's last one.
    return ClusterMapCodec.decode((answer + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
