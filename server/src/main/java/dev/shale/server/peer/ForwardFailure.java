package dev.shale.server.peer;

/**
 * Why a request to a peer (a replica) got no answer: {@link #unavailable} when it was not
 * delivered (the peer refused the connection, is marked down, or too many requests already wait
 * for it), {@link #timedOut} when it was sent but no answer came in time, so a write's outcome
 * is unknown. The coordinator counts either as a failed replica and quotes the message, which
 * says which of the two it was.
 */
final class ForwardFailure extends Exception {
  private ForwardFailure(String reason) {
    super(reason, null, false, false); // an expected outcome: no stack trace
  }

  static ForwardFailure unavailable(String reason) {
    return new ForwardFailure(reason);
  }

  static ForwardFailure timedOut(String reason) {
    return new ForwardFailure(reason);
  }
}
