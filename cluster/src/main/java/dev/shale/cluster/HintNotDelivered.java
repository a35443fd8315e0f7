package dev.shale.cluster;

/**
 * Why a hint did not reach its replica, in the words of the {@link HintSender}: the replica could
 * not be reached ("cannot connect to ..."), did not answer in time, or answered with a refusal
 * (its status and reason). Delivery quotes it in its warning, so that an operator reading the log
 * can tell a replica that is down from one that refuses the write.
 */
public final class HintNotDelivered extends Exception {
  private static final long serialVersionUID = 1L;

  public HintNotDelivered(String reason) {
    super(reason, null, false, false); // an expected outcome: no stack trace
  }
}
