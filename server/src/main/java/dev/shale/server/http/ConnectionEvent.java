package dev.shale.server.http;

/** User events sent down a connection's pipeline. */
public enum ConnectionEvent {
  /**
   * Answer the requests received, read no more, then close: the server is shutting down, or
   * the connection can no longer be read (a request already answered went wrong mid-body).
   */
  FINISH,
  /** The current request did not arrive within the request timeout: answer 408 and close. */
  REQUEST_TIMED_OUT
}
