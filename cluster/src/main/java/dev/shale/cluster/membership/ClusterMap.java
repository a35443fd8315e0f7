package dev.shale.cluster.membership;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The cluster's topology as its members agreed it: a version, the members with their states, and
 * the replication factor. Immutable and thread safe; a change makes a new map ({@link #apply}).
 *
 * <p>Every member applies the same changes in the Raft log's order, and the version of the map a
 * change produced is the index of that change in the log: equal versions are equal maps.
 *
 * <p>Which members hold a key is decided here and nowhere else: reads go to the members that had
 * the data before the change under way (normal and leaving), writes to those and to the ones
 * that will have it after (normal and joining), so a write reaches both the old and the new
 * replicas of its key while a change is pending.
 */
public final class ClusterMap {
  // Before EMPTY: its constructor sorts with it.
  private static final Comparator<Member> BY_ID = Comparator.comparing(m -> m.address().id());

  /** The map of a cluster not bootstrapped yet: no member. */
  public static final ClusterMap EMPTY = new ClusterMap(0, List.of(), 0);

  private final long version;
  // The version since which readable/writable members and replication factor are these: see placementVersion().
  private final long placementVersion;
  private final List<Member> members; // sorted by id, one per address
  private final int replicationFactor;
  private final @Nullable Placement readPlacement; // over normal and leaving members; null: none
  private final @Nullable Placement writePlacement; // over normal and joining members; null: none

  /** A map whose placement dates from {@code version} (see {@link #placementVersion}). */
  public ClusterMap(long version, List<Member> members, int replicationFactor) {
    this(version, version, members, replicationFactor);
  }

  /** A map whose placement dates from {@code placementVersion}, at most {@code version} (a stored one). */
  public ClusterMap(long version, long placementVersion, List<Member> members, int replicationFactor) {
    if (placementVersion < 0 || placementVersion > version) {
      throw new IllegalArgumentException("placementVersion out of [0, " + version + "]: " + placementVersion);
    }
    if (version < 0) throw new IllegalArgumentException("version must be >= 0: " + version);
    if (replicationFactor < 0) throw new IllegalArgumentException("replication factor must be >= 0: " + replicationFactor);
    this.version = version;
    this.placementVersion = placementVersion;
    this.members = members.stream().sorted(BY_ID).toList();
    if (this.members.stream().map(Member::address).distinct().count() != this.members.size()) {
      throw new IllegalArgumentException("a member is named twice in " + members);
    }
    this.replicationFactor = replicationFactor;
    this.readPlacement = placementOver(m -> m.state() != MemberState.JOINING);
    this.writePlacement = placementOver(m -> m.state() != MemberState.LEAVING);
  }

  public long version() {
    return version;
  }

  /**
   * The version of the change that made this map's placement what it is: its readable and
   * writable members and its replication factor, so every request's replicas. Later changes that
   * leave those alone (a progress report, a join asked again) keep it. Replicas refuse requests
   * that a coordinator addressed with a map older than this (the map fence, docs/design.md
   * "Handoff"), so a request never lands on a placement it was not addressed for.
   *
   * <p>Derived from the changes applied, so equal on every member that applied the same log; kept
   * in the stored map (docs/format.md, "Cluster map"). A bootstrap's is 0: its placement is the
   * {@code --cluster} list each node served with as map 0 until it applied the bootstrap. A map
   * read from a store that did not keep it takes its own version, never earlier than the true
   * one: its node refuses a little more until the coordinators behind it catch up, which is safe.
   */
  public long placementVersion() {
    return placementVersion;
  }

  /** Every member, sorted by id. */
  public List<Member> members() {
    return members;
  }

  public int replicationFactor() {
    return replicationFactor;
  }

  public boolean isEmpty() {
    return members.isEmpty();
  }

  public Optional<Member> member(NodeAddress address) {
    return members.stream().filter(m -> m.address().equals(address)).findFirst();
  }

  /** The members a key's data is read from: the normal and leaving ones (a joining one may not have it yet). */
  public List<NodeAddress> readableMembers() {
    return readPlacement == null ? List.of() : readPlacement.topology().nodes();
  }

  /** The members a key's data is written to once the change under way is done: the normal and joining ones. */
  public List<NodeAddress> writableMembers() {
    return writePlacement == null ? List.of() : writePlacement.topology().nodes();
  }

  /**
   * The members leaving because they are down ({@link Member#dead}): still among the readable
   * members (a request's replicas keep their number; one that is down fails at once), but no
   * source of the copies they held, which are rebuilt from the other replicas.
   */
  public List<NodeAddress> deadMembers() {
    return members.stream().filter(Member::dead).map(Member::address).toList();
  }

  /** The member that is joining or leaving, if one is (at most one is: see {@link #apply}). */
  public Optional<Member> inTransition() {
    return members.stream().filter(m -> m.state().inTransition()).findFirst();
  }

  /**
   * The members to read {@code key} from: the first {@code from} of its preference list over the
   * normal and leaving members (fewer when there are fewer). A joining member is not read from: it
   * may not have the key yet.
   *
   * <p>A member leaving dead stays in the list: without it a key it replicated would have fewer
   * than {@code from} replicas, which the coordinator refuses, and its successor, in its place,
   * may not hold the key yet (a quorum of it and a replica that missed a write would miss it). A
   * request to it fails and the others answer, as while it was a normal member that was down.
   */
  public List<NodeAddress> readReplicas(byte[] key, int from) {
    return firstOf(readPlacement, key, from);
  }

  /**
   * The replicas of {@code key} once the change under way is done: the first {@code from} of its
   * preference list over the normal and joining members (fewer when there are fewer). A write goes
   * to these and its {@link #readReplicas}; without a change under way they are the same.
   */
  public List<NodeAddress> replicasAfterChange(byte[] key, int from) {
    return firstOf(writePlacement, key, from);
  }

  /**
   * The map {@code change}, at log index {@code index}, makes of this one.
   *
   * <p>Invariant kept here: at most one member is joining or leaving. A join or a leave is
   * refused while another member is in transition, and since every member applies the log in
   * the same order, two racing requests cannot both pass: the second one applied is refused.
   *
   * @throws TopologyChangeRefused saying why the change does not apply (this map is unchanged)
   */
  public ClusterMap apply(TopologyChange change, long index) {
    if (index <= version) throw new IllegalArgumentException("index " + index + " is not after version " + version);
    ClusterMap next = switch (change) {
      case TopologyChange.Bootstrap b -> bootstrap(b, index);
      case TopologyChange.Join j -> join(j, index);
      case TopologyChange.MarkNormal n -> with(index, n.address(), "mark normal", MemberState.JOINING,
          m -> m.withState(MemberState.NORMAL).withProgress(""));
      case TopologyChange.MarkLeaving l -> leave(l.address(), false, index);
      case TopologyChange.MarkDead d -> leave(d.address(), true, index);
      case TopologyChange.Remove r -> remove(r.address(), index);
      case TopologyChange.Progress p -> with(index, p.address(), "report progress of", null, m -> m.withProgress(p.progress()));
    };
    boolean samePlacement = next.replicationFactor == replicationFactor && next.readableMembers().equals(readableMembers())
        && next.writableMembers().equals(writableMembers());
    return samePlacement ? new ClusterMap(next.version, placementVersion, next.members, replicationFactor) : next;
  }

  private ClusterMap bootstrap(TopologyChange.Bootstrap b, long index) {
    if (!isEmpty()) throw new TopologyChangeRefused("the cluster is bootstrapped already (map version " + version + ")");
    if (b.members().isEmpty()) throw new TopologyChangeRefused("a cluster has at least one member");
    if (b.replicationFactor() < 1) throw new TopologyChangeRefused("the replication factor must be >= 1: " + b.replicationFactor());
    List<Member> normal = b.members().stream().map(m -> m.withState(MemberState.NORMAL)).toList();
    // Placement version 0: the --cluster list every node served with as map 0 until it applied this.
    return new ClusterMap(index, 0, normal, b.replicationFactor());
  }

  private ClusterMap join(TopologyChange.Join j, long index) {
    requireBootstrapped("join");
    Optional<Member> existing = member(j.address());
    if (existing.isPresent()) {
      Member m = existing.get();
      // Asking again (the joining node retried, or its first answer was lost) is not an error.
      if (m.state() == MemberState.JOINING && m.raftAddress().equals(j.raftAddress())) return withVersion(index);
      throw new TopologyChangeRefused(j.address() + " is a member already (" + m.state().wireName() + ")");
    }
    refuseWhileInTransition("add " + j.address());
    List<Member> next = new ArrayList<>(members);
    next.add(Member.joining(j.address(), j.raftAddress()));
    return new ClusterMap(index, next, replicationFactor);
  }

  /** A normal member starts leaving; {@code dead}: because it is down, so no node pulls from it. */
  private ClusterMap leave(NodeAddress address, boolean dead, long index) {
    Member m = existingMember(address, dead ? "mark dead" : "mark leaving");
    if (m.state() == MemberState.LEAVING) {
      // Asked again; or a leaving member went down on the way: marked dead, the pulls stop asking it.
      return dead && !m.dead() ? replace(index, m.leavingDead()) : withVersion(index);
    }
    refuseWhileInTransition("start removing " + address);
    if (members.size() == 1) throw new TopologyChangeRefused(address + " is the last member; a cluster keeps at least one");
    return replace(index, dead ? m.leavingDead() : m.withState(MemberState.LEAVING));
  }

  private ClusterMap remove(NodeAddress address, long index) {
    Member m = existingMember(address, "remove");
    // A leaving member is the one in transition; any other may be removed only when nothing is.
    if (m.state() != MemberState.LEAVING) refuseWhileInTransition("remove " + address);
    if (members.size() == 1) throw new TopologyChangeRefused(address + " is the last member; a cluster keeps at least one");
    List<Member> next = members.stream().filter(x -> !x.address().equals(address)).toList();
    return new ClusterMap(index, next, replicationFactor);
  }

  private ClusterMap with(long index, NodeAddress address, String what, @Nullable MemberState required, UnaryOperator<Member> edit) {
    Member m = existingMember(address, what);
    if (required != null && m.state() != required) {
      if (required == MemberState.JOINING && m.state() == MemberState.NORMAL) return withVersion(index); // asked again
      throw new TopologyChangeRefused("cannot " + what + " " + address + ": it is " + m.state().wireName()
          + ", not " + required.wireName());
    }
    return replace(index, edit.apply(m));
  }

  private void refuseWhileInTransition(String what) {
    Optional<Member> busy = inTransition();
    if (busy.isPresent()) {
      throw new TopologyChangeRefused("cannot " + what + " while " + busy.get().address() + " is "
          + busy.get().state().wireName() + ": one change at a time; retry once it is done");
    }
  }

  private Member existingMember(NodeAddress address, String what) {
    requireBootstrapped(what);
    return member(address).orElseThrow(() -> new TopologyChangeRefused(
        "cannot " + what + " " + address + ": not a member (members: " + addresses() + ")"));
  }

  private void requireBootstrapped(String what) {
    if (isEmpty()) throw new TopologyChangeRefused("cannot " + what + ": the cluster is not bootstrapped yet");
  }

  private ClusterMap replace(long index, Member changed) {
    List<Member> next = members.stream().map(m -> m.address().equals(changed.address()) ? changed : m).toList();
    return new ClusterMap(index, next, replicationFactor);
  }

  private ClusterMap withVersion(long index) {
    return new ClusterMap(index, members, replicationFactor);
  }

  public List<NodeAddress> addresses() {
    return members.stream().map(Member::address).toList();
  }

  private @Nullable Placement placementOver(Predicate<Member> which) {
    List<NodeAddress> nodes = members.stream().filter(which).map(Member::address).toList();
    // Placement's "self" plays no part in preference lists; any member of the set will do.
    return nodes.isEmpty() ? null : new Placement(new Topology(nodes, nodes.getFirst()));
  }

  private static List<NodeAddress> firstOf(@Nullable Placement placement, byte[] key, int from) {
    if (from < 1) throw new IllegalArgumentException("from must be >= 1: " + from);
    if (placement == null) return List.of();
    return placement.preferenceList(key, Math.min(from, placement.topology().size()));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClusterMap other && version == other.version && replicationFactor == other.replicationFactor
        && members.equals(other.members);
  }

  @Override
  public int hashCode() {
    return Objects.hash(version, members, replicationFactor);
  }

  @Override
  public String toString() {
    return "ClusterMap[version=" + version + ", replicationFactor=" + replicationFactor + ", members=" + members + "]";
  }
}
