package dev.shale.cluster;

import org.jspecify.annotations.Nullable;

/**
 * How many replicas a request involves and how many of them must answer: the {@code from}
 * first nodes of the key's preference list hold the key, and {@code ack} of them must answer
 * for the request to succeed.
 *
 * <p>Invariant: {@code 1 <= ack <= from}. Whether {@code from} fits the cluster is checked by
 * {@link #parse}, which knows its size.
 *
 * @param ack replicas that must answer
 * @param from replicas the key lives on for this request
 */
public record Consistency(int ack, int from) {

  public Consistency {
    if (from < 1) throw new IllegalArgumentException("from must be a positive integer: " + from);
    if (ack < 1) throw new IllegalArgumentException("ack must be a positive integer: " + ack);
    if (ack > from) throw new IllegalArgumentException("ack (" + ack + ") must not exceed from (" + from + ")");
  }

  /** A majority of {@code from}: 1/1, 2/2, 2/3, 3/4, 3/5. */
  public static int quorum(int from) {
    return from / 2 + 1;
  }

  /**
   * The default of a cluster that keeps each key on {@code replicationFactor} nodes: all of them,
   * and a quorum of them (2/3 for 3).
   */
  public static Consistency defaultFor(int replicationFactor) {
    return new Consistency(quorum(replicationFactor), replicationFactor);
  }

  /**
   * The consistency a request asks for, from its {@code ack} and {@code from} query parameters
   * as received (null when absent), in a cluster of {@code nodes} that keeps each key on
   * {@code replicationFactor} of them. Without {@code from}, the replication factor; without
   * {@code ack}, a quorum of {@code from}. A {@code from} above the replication factor (up to
   * the cluster's size) is allowed: the write also goes to the next nodes of the key's list.
   *
   * @throws IllegalArgumentException with a one-line reason fit for a 400: a parameter that is
   *     not a positive integer, {@code ack > from}, or {@code from} greater than {@code nodes}
   */
  public static Consistency parse(@Nullable String ack, @Nullable String from, int replicationFactor, int nodes) {
    if (replicationFactor < 1 || replicationFactor > nodes) {
      throw new IllegalStateException("replication factor " + replicationFactor + " outside [1, " + nodes + "]");
    }
    int replicas = from == null ? replicationFactor : positive("from", from);
    if (replicas > nodes) {
      throw new IllegalArgumentException("from (" + replicas + ") exceeds the cluster's " + nodes + " node(s)");
    }
    int answers = ack == null ? quorum(replicas) : positive("ack", ack);
    return new Consistency(answers, replicas);
  }

  private static int positive(String name, String text) {
    // Digits only: Integer.parseInt would take "+3", and a client that sends it means something else.
    if (text.isEmpty() || text.length() > 9 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException(name + " must be a positive integer: '" + text + "'");
    }
    int value = Integer.parseInt(text);
    if (value < 1) throw new IllegalArgumentException(name + " must be a positive integer: '" + text + "'");
    return value;
  }

  @Override
  public String toString() {
    return ack + "/" + from;
  }
}
