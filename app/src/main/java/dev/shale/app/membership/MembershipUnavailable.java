package dev.shale.app.membership;

/** The members could not agree on a change (no leader, too few members up, a timeout): try again. */
public final class MembershipUnavailable extends RuntimeException {
  private static final long serialVersionUID = 1L;

  MembershipUnavailable(String message, Throwable cause) {
    super(message, cause);
  }
}
