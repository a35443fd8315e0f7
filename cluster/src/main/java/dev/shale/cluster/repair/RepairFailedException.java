package dev.shale.cluster.repair;

/** A replica could not take part in a repair: unreachable, overloaded, failing. */
public final class RepairFailedException extends RuntimeException {
  public RepairFailedException(String reason) {
    super(reason);
  }

  public RepairFailedException(String reason, Throwable cause) {
    super(reason, cause);
  }
}
