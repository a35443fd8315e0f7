package dev.shale.sim;

import dev.shale.cluster.NodeAddress;
import java.util.HashSet;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * The links between the simulated nodes: a message sent is delivered after a seeded delay, or
 * lost, or delivered twice, as {@link NetworkFaults} says; a link cut (one way or both) drops
 * everything sent over it. Whether the receiver is up is the receiver's business: a message to
 * a node that is down arrives and is dropped there. Every message's fate goes to the trace.
 */
final class SimNetwork {
  private record Link(NodeAddress from, NodeAddress to) {}

  private final VirtualTime time;
  private final RandomGenerator random;
  private final Trace trace;
  private final Set<Link> cut = new HashSet<>();
  private NetworkFaults faults;

  SimNetwork(VirtualTime time, RandomGenerator random, Trace trace, NetworkFaults faults) {
    this.time = time;
    this.random = random;
    this.trace = trace;
    this.faults = faults;
  }

  /** Sends {@code what} from {@code from} to {@code to}: {@code arrive} runs when (and each time) it arrives. */
  void send(NodeAddress from, NodeAddress to, String what, Runnable arrive) {
    String message = from.id() + ">" + to.id() + " " + what;
    if (cut.contains(new Link(from, to))) {
      trace.event("cut " + message);
      return;
    }
    if (random.nextDouble() < faults.lossRate()) {
      trace.event("lost " + message);
      return;
    }
    int copies = random.nextDouble() < faults.duplicateRate() ? 2 : 1;
    for (int i = 0; i < copies; i++) {
      long delay = faults.delayMillis(random);
      trace.event("send " + message + " +" + delay + (copies > 1 ? " dup" : ""));
      time.after(delay, arrive);
    }
  }

  /** Cuts the links from {@code from} to {@code to}, and back too when {@code bothWays}. */
  void cut(NodeAddress from, NodeAddress to, boolean bothWays) {
    cut.add(new Link(from, to));
    if (bothWays) cut.add(new Link(to, from));
    trace.event("cut " + from.id() + (bothWays ? "<>" : ">") + to.id());
  }

  /** Mends every link and turns the faults off: the network is healthy from now on. */
  void heal() {
    cut.clear();
    faults = NetworkFaults.NONE;
    trace.event("network healed");
  }

  /** Mends every cut link, the faults staying as they are. */
  void mend() {
    cut.clear();
    trace.event("links mended");
  }
}
