package dev.shale.server.http;

/** A chunked body that is not strict HTTP (RFC 9112 section 7.1); its message is one line. */
final class MalformedChunkException extends IllegalArgumentException {
  MalformedChunkException(String message) {
    super(message);
  }
}
