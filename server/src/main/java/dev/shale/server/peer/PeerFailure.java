package dev.shale.server.peer;

/**
 * Why a request to a peer got no answer: {@link #unavailable} when it was never written (no
 * connection, the peer marked down, too many requests in flight, the write buffer over its
 * high-water mark), {@link #timedOut} when it was written and no answer came in time or the
 * connection closed first, so a write's outcome is unknown. The coordinator counts either as a
 * failed replica (504 or a hint) and quotes the message, which says which it was.
 */
public final class PeerFailure extends Exception {
  private final boolean written;

  private PeerFailure(String reason, boolean written) {
    super(reason, null, false, false); // an expected outcome: no stack trace
    this.written = written;
  }

  static PeerFailure unavailable(String reason) {
    return new PeerFailure(reason, false);
  }

  static PeerFailure timedOut(String reason) {
    return new PeerFailure(reason, true);
  }

  /** Whether the request went out (then a write's outcome is unknown). */
  public boolean wasWritten() {
    return written;
  }
}
