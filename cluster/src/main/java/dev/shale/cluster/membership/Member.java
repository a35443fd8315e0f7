package dev.shale.cluster.membership;

import dev.shale.cluster.NodeAddress;

/**
 * One member of the cluster map.
 *
 * @param address the member's HTTP address, its identity in placement
 * @param raftAddress {@code host:port} of its Raft server, where the other members reach it
 * @param state where it is in joining or leaving
 * @param progress what the data movement reports of it (e.g. streaming progress), opaque to the
 *     map; empty when there is nothing to report. One line, at most {@link #MAX_PROGRESS_CHARS}
 */
public record Member(NodeAddress address, String raftAddress, MemberState state, String progress) {
  /** The longest progress text: enough for a sentence, small enough to keep the map small. */
  public static final int MAX_PROGRESS_CHARS = 200;

  public Member {
    RaftAddress.check(raftAddress);
    if (progress.length() > MAX_PROGRESS_CHARS) {
      throw new IllegalArgumentException("progress longer than " + MAX_PROGRESS_CHARS + " characters: " + progress.length());
    }
    if (progress.indexOf('\n') >= 0 || progress.indexOf('\r') >= 0) throw new IllegalArgumentException("progress must be one line");
  }

  /** A member that has just asked to join. */
  public static Member joining(NodeAddress address, String raftAddress) {
    return new Member(address, raftAddress, MemberState.JOINING, "");
  }

  public Member withState(MemberState newState) {
    return new Member(address, raftAddress, newState, progress);
  }

  public Member withProgress(String newProgress) {
    return new Member(address, raftAddress, state, newProgress);
  }
}
