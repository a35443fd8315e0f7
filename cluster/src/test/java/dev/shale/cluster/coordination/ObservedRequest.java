package dev.shale.cluster.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One coordinated request seen from the seam: the calls the coordinator makes for it, the replies
 * it gets, in the order they come, and its {@code done}, {@code allIn} and (a read's) {@code
 * newerLate}. Checks, as they happen, that the request is decided exactly when its tally allows
 * (never later, waiting for a replica it does not need; never earlier), that its callbacks run on
 * its loop, and that a read reports a late answer only between {@code done} and {@code allIn},
 * and only one newer than the record it kept.
 */
final class ObservedRequest implements Replicas {
  /** A call the coordinator made, and its reply once it came. */
  static final class Call {
    final NodeAddress replica;
    final boolean initial; // a read, or a write made as the request started; else a read repair
    final long version; // of a write; -1 for a read
    final byte @Nullable [] value;
    @Nullable ReplicaReply reply;

    Call(NodeAddress replica, boolean initial, long version, byte @Nullable [] value) {
      this.replica = replica;
      this.initial = initial;
      this.version = version;
      this.value = value;
    }
  }

  final String name;
  final String key;
  final Consistency consistency;
  final long startedAtMillis;
  final List<Call> calls = new ArrayList<>();
  final List<Call> initialReplies = new ArrayList<>(); // initial calls, in the order their replies came
  private final Replicas network;
  private final VirtualTime.Loop loop;
  private final VirtualTime time;
  private boolean starting = true;
  private boolean delivering; // inside a reply's callback
  int doneCount;
  int allInCount;
  long doneAtMillis = -1;
  long allInAtMillis = -1;
  Coordinator.@Nullable Outcome outcome;
  final List<Entry> newerLate = new ArrayList<>(); // a read's late answers newer than the record it kept, in order
  private final List<String> callbackProblems = new ArrayList<>();

  ObservedRequest(String name, String key, Replicas network, VirtualTime time, VirtualTime.Loop loop,
      Consistency consistency) {
    this.name = name;
    this.key = key;
    this.network = network;
    this.time = time;
    this.loop = loop;
    this.consistency = consistency;
    this.startedAtMillis = time.nowMillis();
  }

  /** The request has made its first calls: calls from now on are read repairs. */
  void started() {
    starting = false;
  }

  @Override
  public NodeAddress self() {
    return network.self();
  }

  @Override
  public void read(Executor loop, NodeAddress replica, byte[] key, long mapVersion, Consumer<ReplicaReply> done) {
    Call call = record(loop, replica, -1, null);
    network.read(loop, replica, key, mapVersion, reply -> deliver(call, reply, done));
  }

  @Override
  public void write(Executor loop, NodeAddress replica, byte[] key, byte @Nullable [] value, long version, long expiresAtMillis,
      long mapVersion, Consumer<ReplicaReply> done) {
    Call call = record(loop, replica, version, value);
    network.write(loop, replica, key, value, version, expiresAtMillis, mapVersion, reply -> deliver(call, reply, done));
  }

  @Override
  public void schedule(Executor loop, long delayMillis, Runnable task) {
    network.schedule(loop, delayMillis, task);
  }

  @Override
  public boolean background(Runnable diskTask) {
    return network.background(diskTask);
  }

  /** The version the write was stamped with: of its first call. */
  long writeVersion() {
    return calls.getFirst().version;
  }

  /** The replicas whose initial call failed, by the replies so far. */
  List<NodeAddress> failedReplicas() {
    return initialReplies.stream().filter(c -> c.reply instanceof ReplicaReply.Failed).map(c -> c.replica).toList();
  }

  long answered() {
    return initialReplies.stream().filter(c -> !(c.reply instanceof ReplicaReply.Failed)).count();
  }

  Consumer<Coordinator.Outcome> done(Consumer<ObservedRequest> check) {
    return outcome -> {
      doneCount++;
      doneAtMillis = time.nowMillis();
      this.outcome = outcome;
      if (!loop.isCurrent()) callbackProblems.add("done ran off its loop");
      if (!delivering) callbackProblems.add("done ran outside a replica's reply");
      if (!decidedBy(initialReplies.size())) callbackProblems.add("done ran before the tally allowed: " + initialReplies.size() + " replies");
      if (decidedBy(initialReplies.size() - 1)) callbackProblems.add("done ran after the tally allowed: " + initialReplies.size() + " replies");
      check.accept(this);
    };
  }

  /** A read's {@code newerLate}. */
  Consumer<Entry> newerLate() {
    return entry -> {
      if (!loop.isCurrent()) callbackProblems.add("newerLate ran off its loop");
      if (!delivering) callbackProblems.add("newerLate ran outside a replica's reply");
      if (doneCount != 1 || allInCount != 0) {
        callbackProblems.add("newerLate ran with done run " + doneCount + " times and allIn " + allInCount + " times");
      }
      Entry kept = kept();
      if (kept != null && Entry.newer(kept, entry) == kept) callbackProblems.add("newerLate with " + entry + ", not newer than " + kept);
      newerLate.add(entry);
    };
  }

  /** The record a decided read keeps for read repair: the last late answer newer than the rest, else the outcome's. */
  @Nullable Entry kept() {
    if (!newerLate.isEmpty()) return newerLate.getLast();
    return outcome == null ? null : outcome.newest();
  }

  Runnable allIn(Consumer<ObservedRequest> check) {
    return () -> {
      allInCount++;
      allInAtMillis = time.nowMillis();
      if (!loop.isCurrent()) callbackProblems.add("allIn ran off its loop");
      if (doneCount != 1) callbackProblems.add("allIn ran with done run " + doneCount + " times");
      check.accept(this);
    };
  }

  /** Checks what can only be checked once every callback had its chance: each ran exactly once, where it had to. */
  void assertEnded() {
    assertThat(callbackProblems).as("%s: callbacks", name).isEmpty();
    assertThat(doneCount).as("%s: done runs", name).isEqualTo(1);
    assertThat(allInCount).as("%s: allIn runs", name).isEqualTo(1);
    assertThat(calls).as("%s: every call answered", name).allMatch(c -> c.reply != null);
  }

  private Call record(Executor callLoop, NodeAddress replica, long version, byte @Nullable [] value) {
    if (callLoop != loop) callbackProblems.add("a call for another loop: " + callLoop);
    Call call = new Call(replica, starting || version == -1, version, value); // a read is never a repair
    calls.add(call);
    return call;
  }

  private void deliver(Call call, ReplicaReply reply, Consumer<ReplicaReply> done) {
    if (call.reply != null) callbackProblems.add("a second reply from " + call.replica);
    if (!loop.isCurrent()) callbackProblems.add("a reply off the request's loop");
    call.reply = reply;
    if (call.initial) initialReplies.add(call);
    delivering = call.initial;
    try {
      done.accept(reply);
    } finally {
      delivering = false;
    }
  }

  /** Whether the first {@code replies} initial replies decide the request by its consistency. */
  private boolean decidedBy(int replies) {
    if (replies < 0) return false;
    List<Call> first = initialReplies.subList(0, replies);
    long failed = first.stream().filter(c -> c.reply instanceof ReplicaReply.Failed).count();
    return replies - failed >= consistency.ack() || failed > consistency.from() - consistency.ack();
  }
}
