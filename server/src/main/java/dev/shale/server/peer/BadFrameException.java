package dev.shale.server.peer;

/**
 * Bytes on a peer connection that are no frame of the internode protocol, or a frame that breaks
 * its rules (docs/format.md, "Internode protocol", "Errors"): the connection closes.
 */
final class BadFrameException extends Exception {
  BadFrameException(String reason) {
    super(reason, null, false, false); // an expected outcome of bad input: no stack trace
  }
}
