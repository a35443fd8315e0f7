package dev.shale.cluster;

/**
 * Why a hint did not reach its replica, in the words of the {@link HintSender}: the replica could
 * not be reached ("cannot connect to ..."), did not answer in time, or answered with a refusal
 * (its status and reason). Delivery quotes it in its warning, so that an operator reading the log
 * can tell a replica that is down from one that refuses the write.
 */
public final class HintNotDelivered extends Exception {
  private static final long serialVersionUID = 1L;

  private final boolean never;

  public HintNotDelivered(String reason) {
    this(reason, false);
  }

  private HintNotDelivered(String reason, boolean never) {
    super(reason, null, false, false); // an expected outcome: no stack trace
    this.never = never;
  }

  /**
   * The replica refused the hint for a reason that will not pass: its version is beyond the
   * version-skew bound of a replica whose clock is within the cluster's (docs/design.md, "Clock
   * offsets"). Admitted later, once time caught up with it, it would replace the writes
   * acknowledged meanwhile; the delivery drops it.
   */
  public static HintNotDelivered never(String reason) {
    return new HintNotDelivered(reason, true);
  }

  /** Whether the hint can never be delivered ({@link #never}): it is dropped, not tried again. */
  public boolean isNever() {
    return never;
  }
}
