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
 * @param dead a leaving member that is down ({@code nodes remove --dead}): its copies are rebuilt
 *     from the other replicas, never pulled from it. Only a leaving member is dead
 */
public record Member(NodeAddress address, String raftAddress, MemberState state, String progress, boolean dead) {
  /** The longest progress text: enough for a sentence, small enough to keep the map small. */
  public static final int MAX_PROGRESS_CHARS = 200;

  public Member {
    RaftAddress.check(raftAddress);
    if (dead && state != MemberState.LEAVING) {
      throw new IllegalArgumentException("only a leaving member is dead, not a " + state.wireName() + " one");
    }
    if (progress.length() > MAX_PROGRESS_CHARS) {
      throw new IllegalArgumentException("progress longer than " + MAX_PROGRESS_CHARS + " characters: " + progress.length());
    }
    if (progress.indexOf('\n') >= 0 || progress.indexOf('\r') >= 0) throw new IllegalArgumentException("progress must be one line");
  }

  /** A member that is not dead. */
  public Member(NodeAddress address, String raftAddress, MemberState state, String progress) {
    this(address, raftAddress, state, progress, false);
  }

  /** A member that has just asked to join. */
  public static Member joining(NodeAddress address, String raftAddress) {
    return new Member(address, raftAddress, MemberState.JOINING, "");
  }

  public Member withState(MemberState newState) {
    return new Member(address, raftAddress, newState, progress, dead);
  }

  public Member withProgress(String newProgress) {
    return new Member(address, raftAddress, state, newProgress, dead);
  }

  /** This member leaving because it is down. */
  public Member leavingDead() {
    return new Member(address, raftAddress, MemberState.LEAVING, progress, true);
  }
}
