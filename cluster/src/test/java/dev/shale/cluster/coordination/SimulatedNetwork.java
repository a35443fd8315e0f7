package dev.shale.cluster.coordination;

import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Entry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The replicas of a cluster and the network between them, simulated in {@link VirtualTime} from
 * one seeded {@link Random}: each request and each reply to a peer takes a random delay (so they
 * overtake each other), may be lost, or be slow beyond the timeout; a peer may refuse; a stopped
 * peer takes requests but does nothing with them until resumed. A call no reply ends within
 * {@link Faults#timeoutMillis} fails with a timeout, as the real transport's does, and a reply
 * after that is dropped: {@code done} runs exactly once, on the caller's loop.
 *
 * <p>This node's own replica (its engine) is reached without the network: a short delay (a
 * storage worker's turn), and a seeded share of failures (an engine that refuses).
 */
final class SimulatedNetwork {
  /**
   * What goes wrong, as shares of messages, and the delays.
   *
   * @param lossRate a request or a reply to a peer lost: the caller's timeout ends it
   * @param slowRate a message to a peer that takes between half and twice the timeout
   * @param refusalRate a peer that answers a request with a refusal (an overloaded replica)
   * @param localFailureRate this node's engine failing a call
   * @param maxDelayMillis the longest delay of a message that is not slow
   * @param timeoutMillis the replica timeout
   */
  record Faults(double lossRate, double slowRate, double refusalRate, double localFailureRate, long maxDelayMillis,
      long timeoutMillis) {
    static final Faults NONE = new Faults(0, 0, 0, 0, 5, 1_000);

    static Faults random(Random random) {
      return new Faults(random.nextDouble(0.1), random.nextDouble(0.05), random.nextDouble(0.05),
          random.nextDouble(0.05), 1 + random.nextInt(20), 200 + random.nextInt(800));
    }
  }

  private final VirtualTime time;
  private final Random random;
  private final Faults faults;
  private final Map<NodeAddress, SimulatedReplica> replicas = new HashMap<>();
  private final Map<NodeAddress, List<Runnable>> held = new HashMap<>(); // requests a stopped peer took
  private final Set<NodeAddress> stopped = new HashSet<>();
  private boolean backgroundFull; // the storage pool refuses background tasks

  SimulatedNetwork(VirtualTime time, Random random, List<NodeAddress> nodes, Faults faults) {
    this.time = time;
    this.random = random;
    this.faults = faults;
    for (NodeAddress node : nodes) replicas.put(node, new SimulatedReplica());
  }

  SimulatedReplica replica(NodeAddress node) {
    return replicas.get(node);
  }

  /** {@code node} stops (as if SIGSTOPped): what reaches it waits until {@link #resume}. */
  void stop(NodeAddress node) {
    stopped.add(node);
  }

  /** {@code node} goes on: it serves what it took while stopped, in the order it came. */
  void resume(NodeAddress node) {
    if (!stopped.remove(node)) return;
    List<Runnable> waiting = held.remove(node);
    if (waiting != null) waiting.forEach(Runnable::run);
  }

  /** Whether {@link Replicas#background} refuses tasks, as a full storage pool does. */
  void backgroundFull(boolean full) {
    backgroundFull = full;
  }

  boolean isStopped(NodeAddress node) {
    return stopped.contains(node);
  }

  /** The seam as node {@code self} sees it: its own replica local, the others over the network. */
  Replicas from(NodeAddress self) {
    return new NodeReplicas(self);
  }

  /** One call to one replica: ends once, by a reply or by the timeout, whichever is first. */
  private static final class Call {
    private final Executor loop;
    private final Consumer<ReplicaReply> done;
    private boolean ended;

    Call(Executor loop, Consumer<ReplicaReply> done) {
      this.loop = loop;
      this.done = done;
    }

    void end(ReplicaReply reply) {
      if (ended) return; // a reply after the timeout, or a timeout after the reply
      ended = true;
      loop.execute(() -> done.accept(reply));
    }
  }

  private final class NodeReplicas implements Replicas {
    private final NodeAddress self;

    NodeReplicas(NodeAddress self) {
      this.self = self;
    }

    @Override
    public NodeAddress self() {
      return self;
    }

    @Override
    public void read(Executor loop, NodeAddress replica, byte[] key, long mapVersion, Consumer<ReplicaReply> done) {
      call(loop, replica, r -> new ReplicaReply.Read(r.get(key)), done);
    }

    @Override
    public void write(Executor loop, NodeAddress replica, byte[] key, byte @Nullable [] value, long version,
        long expiresAtMillis, long mapVersion, Consumer<ReplicaReply> done) {
      Entry entry = new Entry(key, version, value, expiresAtMillis);
      call(loop, replica, r -> {
        r.apply(entry);
        return ReplicaReply.Stored.INSTANCE;
      }, done);
    }

    @Override
    public void schedule(Executor loop, long delayMillis, Runnable task) {
      time.after(delayMillis, () -> loop.execute(task));
    }

    @Override
    public boolean background(Runnable diskTask) {
      if (backgroundFull) return false;
      time.after(0, diskTask);
      return true;
    }

    private void call(Executor loop, NodeAddress replica, Function<SimulatedReplica, ReplicaReply> work,
        Consumer<ReplicaReply> done) {
      Call call = new Call(loop, done);
      if (replica.equals(self)) {
        boolean fails = random.nextDouble() < faults.localFailureRate();
        time.after(random.nextInt(3), () -> call.end(fails
            ? new ReplicaReply.Failed(self.id() + ": the engine refused the call")
            : work.apply(replicas.get(self))));
        return;
      }
      // Without the replica's name: the tally adds it, as it does to the real transport's reasons that lack it.
      time.after(faults.timeoutMillis(), () -> call.end(new ReplicaReply.Failed("no answer within " + faults.timeoutMillis() + " ms")));
      if (random.nextDouble() < faults.lossRate()) return;
      time.after(delayMillis(), () -> arrive(replica, () -> serve(replica, work, call)));
    }

    private void arrive(NodeAddress replica, Runnable serve) {
      if (stopped.contains(replica)) held.computeIfAbsent(replica, r -> new ArrayList<>()).add(serve);
      else serve.run();
    }

    private void serve(NodeAddress replica, Function<SimulatedReplica, ReplicaReply> work, Call call) {
      ReplicaReply reply = random.nextDouble() < faults.refusalRate()
          ? new ReplicaReply.Failed(replica.id() + " answered 503: overloaded")
          : work.apply(replicas.get(replica));
      if (random.nextDouble() < faults.lossRate()) return;
      time.after(delayMillis(), () -> call.end(reply));
    }

    private long delayMillis() {
      if (random.nextDouble() < faults.slowRate()) {
        return faults.timeoutMillis() / 2 + random.nextLong(faults.timeoutMillis() * 2);
      }
      return random.nextLong(faults.maxDelayMillis() + 1);
    }
  }
}
