package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import dev.shale.cluster.membership.MemberState;
import dev.shale.cluster.membership.Membership;
import dev.shale.cluster.membership.TopologyChange;
import dev.shale.cluster.membership.TopologyChangeRefused;
import dev.shale.cluster.membership.TopologyListener;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The membership's {@link TopologyListener} on a node whose data moves on node changes: it turns
 * the cluster map's transitions into the handoff's {@link ChangeListener} calls, and the handoff's
 * {@link ChangeProgress#received} into the map changes that finish them.
 *
 * <ul>
 *   <li>A member becomes {@code joining} or {@code leaving}: the change is the placement over the
 *       map's readable members (normal and leaving) to the one over its writable members (normal
 *       and joining), with the map's replication factor: {@link ChangeListener#changeStarted}.
 *   <li>That member becomes {@code normal} or is removed: {@link ChangeListener#changeCommitted}
 *       with the same change (the cleanup).
 *   <li>This node received every range it gains: of a joining member (the only node a join gives
 *       ranges to) it proposes {@code normal}; of a leave, it reports {@code progress} on itself,
 *       and the report that makes every gaining node done proposes {@code remove} of the leaving one.
 *   <li>A member leaving dead ({@code nodes remove --dead}) leaves like a live one, but is down in
 *       the change: the gaining nodes pull its copies from the other replicas; it reports nothing.
 * </ul>
 *
 * <p>The handoff is {@link #attach attached} once the node serves (the membership starts before
 * it and may apply changes meanwhile): attaching starts the change the map has in transition, if
 * any, which is how a restarted node resumes its pulls; with none in transition, it lets the
 * handoff commit a change that ended while the node was down ({@link ChangeListener#noChangePending}).
 *
 * <p>Thread safe: {@link #onChange} runs on the thread that applies the log, {@link #received} on
 * the handoff's; both return at once, proposals complete on the membership's own thread.
 */
public final class MapChanges implements TopologyListener, ChangeProgress {
  private static final System.Logger LOG = System.getLogger(MapChanges.class.getName());
  /** How often a proposal that could not reach the members is tried, a second apart. */
  private static final int TRIES = 30;
  private static final String RECEIVED = "handoff: received the ranges of ";

  private @Nullable NodeAddress self; // set by attach
  private @Nullable Membership membership; // set by attach
  private @Nullable ChangeListener handoff; // set by attach
  private @Nullable PlacementChange started; // the change the handoff was told of, until committed
  private @Nullable Sides startedSides; // its node lists: a Placement has no value equality

  /**
   * From now on changes go to {@code handoff} (the one of {@code self}), and its reports to
   * {@code membership}; starts the change the map has in transition, if any.
   */
  public synchronized void attach(NodeAddress self, Membership membership, ChangeListener handoff) {
    this.self = self;
    this.membership = membership;
    this.handoff = handoff;
    ClusterMap now = membership.current();
    follow(handoff, now);
    // The membership may have applied the end of a change before the handoff was attached.
    if (now.inTransition().isEmpty() && now.member(self).isPresent()) handoff.noChangePending(now.addresses());
  }

  @Override
  public synchronized void onChange(ClusterMap before, ClusterMap after) {
    if (handoff != null) follow(handoff, after); // else attach() looks at the map it finds
  }

  private void follow(ChangeListener handoff, ClusterMap after) {
    Optional<Member> moving = after.inTransition();
    if (moving.isPresent()) {
      // A progress report changes the map, not the change: the same sides are the same change.
      Sides sides = new Sides(after.readableMembers(), after.writableMembers(), after.replicationFactor(), after.deadMembers());
      PlacementChange change = changeOf(after);
      if (change != null && !sides.equals(startedSides)) {
        // A change this node missed the end of is over; the same one with its leaving member now
        // dead goes on (started again, its pulls resume, skipping the dead one).
        if (started != null && !sides.sameNodes(startedSides)) handoff.changeCommitted(started);
        started = change;
        startedSides = sides;
        handoff.changeStarted(change);
      }
    } else if (started != null) {
      PlacementChange done = started;
      started = null;
      startedSides = null;
      handoff.changeCommitted(done);
      Optional<Member> me = after.member(Objects.requireNonNull(self));
      if (me.isPresent() && me.get().progress().startsWith(RECEIVED)) propose(new TopologyChange.Progress(self, ""));
    }
  }

  /**
   * The placement change a map in transition stands for, or null when either side is empty (a
   * cluster's first member joining has nothing to receive). A member leaving dead is down in it.
   */
  static @Nullable PlacementChange changeOf(ClusterMap map) {
    List<NodeAddress> before = map.readableMembers();
    List<NodeAddress> after = map.writableMembers();
    if (before.isEmpty() || after.isEmpty() || map.replicationFactor() < 1) return null;
    return PlacementChange.between(before, after, map.replicationFactor(), map.version()).withDown(map.deadMembers());
  }

  /** A change as the node lists before and after it, the replication factor, and the nodes down in it. */
  private record Sides(List<NodeAddress> before, List<NodeAddress> after, int replicationFactor, List<NodeAddress> down) {
    /** Whether {@code other} moves the same keys between the same nodes (whoever is down). */
    boolean sameNodes(@Nullable Sides other) {
      return other != null && before.equals(other.before) && after.equals(other.after)
          && replicationFactor == other.replicationFactor;
    }
  }

  @Override
  public void received(NodeAddress node) {
    Membership members;
    PlacementChange change;
    Member moving;
    synchronized (this) {
      members = membership;
      change = started;
      moving = members == null ? null : members.current().inTransition().orElse(null);
    }
    if (members == null || change == null || moving == null) return;
    if (moving.state() == MemberState.JOINING) {
      if (moving.address().equals(node)) propose(new TopologyChange.MarkNormal(node));
      return;
    }
    String report = RECEIVED + moving.address().id() + " leaving";
    propose(new TopologyChange.Progress(node, report)).thenAccept(map -> {
      if (map != null && everyGainerReported(map, change, report)) propose(new TopologyChange.Remove(moving.address()));
    });
  }

  private static boolean everyGainerReported(ClusterMap map, PlacementChange change, String report) {
    for (Member member : map.members()) {
      if (member.state() == MemberState.LEAVING) continue;
      if (!change.rangesGainedBy(member.address()).isEmpty() && !member.progress().equals(report)) return false;
    }
    return true;
  }

  /**
   * Proposes {@code change}, again while the members cannot be reached; completes with the map it
   * made, or null when it was refused (a no-op already done, as by another node) or never agreed.
   */
  private CompletableFuture<@Nullable ClusterMap> propose(TopologyChange change) {
    CompletableFuture<@Nullable ClusterMap> result = new CompletableFuture<>();
    tryPropose(change, 1, result);
    return result;
  }

  private void tryPropose(TopologyChange change, int attempt, CompletableFuture<@Nullable ClusterMap> result) {
    Membership members = Objects.requireNonNull(membership);
    members.change(change).whenComplete((map, failure) -> {
      if (failure == null) {
        result.complete(map);
        return;
      }
      Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
      if (cause instanceof TopologyChangeRefused || attempt >= TRIES) {
        LOG.log(cause instanceof TopologyChangeRefused ? Level.DEBUG : Level.ERROR,
            () -> "handoff: the change " + change + " was not made: " + cause.getMessage());
        result.complete(null);
        return;
      }
      Executor later = CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS);
      later.execute(() -> tryPropose(change, attempt + 1, result));
    });
  }
}
