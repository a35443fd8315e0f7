package dev.shale.server;

/** User events sent down a connection's pipeline. */
enum ConnectionEvent {
  /** The server is shutting down: answer what was received, then close. */
  DRAIN,
  /** The current request did not arrive within the request timeout: answer 408 and close. */
  REQUEST_TIMED_OUT
}
