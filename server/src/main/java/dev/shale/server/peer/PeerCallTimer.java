package dev.shale.server.peer;

/**
 * Times the requests this node sends to one peer, by how they ended (the metrics'
 * {@code shale_peer_request_duration_seconds}). Called on the event loop that sent the request,
 * once per request: it must not block, and should not allocate.
 */
public interface PeerCallTimer {
  /** Records nothing (a node started with {@code --metrics=false}). */
  PeerCallTimer NONE = (outcome, nanos) -> {};

  /** How a request to a peer ended. */
  enum Outcome {
    /** The peer answered (whatever the answer said). */
    ANSWERED,
    /** It was never written: no connection, the peer marked down, too many in flight. */
    UNAVAILABLE,
    /** It was written and no answer came in time, or the connection closed first. */
    TIMED_OUT
  }

  /** A request ended with {@code outcome}, {@code nanos} after it was sent. */
  void record(Outcome outcome, long nanos);
}
