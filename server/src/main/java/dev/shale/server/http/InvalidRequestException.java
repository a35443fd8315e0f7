package dev.shale.server.http;

/**
 * A request the server refuses with 400; the message is the one-line reason sent to the client.
 * Carries no stack trace: it is a verdict on client input, thrown as often as clients err.
 */
public final class InvalidRequestException extends Exception {
  public InvalidRequestException(String reason) {
    super(reason, null, false, false);
  }
}
