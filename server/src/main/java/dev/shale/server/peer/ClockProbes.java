package dev.shale.server.peer;

import dev.shale.cluster.ClockOffsets;
import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Env;
import dev.shale.storage.SuppressForbidden;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Measures this node's clock against every other member's (docs/design.md, "Clock offsets"): a
 * CLOCK_ASK to each over its peer links, once as the node starts and then every {@link
 * #INTERVAL_MILLIS}, each answer a round trip for {@link ClockOffsets#measured}. A member that
 * does not answer keeps its last measurement.
 *
 * <p>Thread safe.
 */
public final class ClockProbes implements AutoCloseable {
  /** How often each member is asked: a clock that steps is seen within this much. */
  public static final long INTERVAL_MILLIS = 1_000;

  private final NodeAddress self;
  private final Supplier<List<NodeAddress>> members;
  private final PeerLinks links;
  private final EventLoopGroup loops;
  private final ClockOffsets offsets;
  private final Env env; // the clock of start's wait
  private volatile @Nullable ScheduledFuture<?> schedule;

  public ClockProbes(
      NodeAddress self, Supplier<List<NodeAddress>> members, PeerLinks links, EventLoopGroup loops, ClockOffsets offsets, Env env) {
    this.env = env;
    this.self = self;
    this.members = members;
    this.links = links;
    this.loops = loops;
    this.offsets = offsets;
  }

  /**
   * Asks every other member once and waits up to {@code timeoutMillis} for the answers (a member
   * that is down fails at once), then tells the offsets that the start's measurements are done,
   * and asks again every {@link #INTERVAL_MILLIS} from then on. Called once, off the event loops.
   */
  @SuppressForbidden(reason = "waits on Netty's answer futures, the adapter's; the deadline is the Env's")
  public void start(long timeoutMillis) {
    List<Future<?>> asked = probeAll();
    long deadline = env.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    for (Future<?> answer : asked) {
      if (!answer.awaitUninterruptibly(Math.max(0, deadline - env.nanoTime()), TimeUnit.NANOSECONDS)) break;
    }
    offsets.markStarted();
    schedule = loops.next().scheduleAtFixedRate(this::probeAll, INTERVAL_MILLIS, INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Asks every other member of the map now; each future ends with its answer or failure. */
  private List<Future<?>> probeAll() {
    offsets.fence(); // logs a change the last round made, though no request asked since
    offsets.retainMembers();
    List<Future<?>> asked = new ArrayList<>();
    for (NodeAddress member : members.get()) {
      if (!member.equals(self)) asked.add(probe(member));
    }
    return asked;
  }

  private Future<?> probe(NodeAddress member) {
    EventExecutor loop = loops.next();
    long askedWall = offsets.wallMillis();
    long askedNanos = offsets.monotonicNanos();
    Future<PeerMessage.Answer> answer = links.sendBackground(loop, member, PeerMessage.ClockAsk::new);
    answer.addListener(f -> {
      if (f.isSuccess() && f.getNow() instanceof PeerMessage.Clock clock) {
        offsets.measured(member.id(), askedWall, askedNanos, clock.wallMillis(), offsets.monotonicNanos());
      }
    });
    return answer;
  }

  @Override
  public void close() {
    ScheduledFuture<?> scheduled = schedule;
    if (scheduled != null) scheduled.cancel(false);
  }
}
