package dev.shale.cluster.membership;

/** A change the cluster map does not take (another change under way, an unknown member...), with why. */
public final class TopologyChangeRefused extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TopologyChangeRefused(String message) {
    super(message);
  }
}
