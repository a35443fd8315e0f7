package dev.shale.server.http;

import org.jspecify.annotations.Nullable;

/**
 * A request-target split into its path and its raw query (the text after {@code ?}, or null).
 * Accepts the origin form ({@code /v0/entity?id=a}) and the absolute form
 * ({@code http://host/v0/entity?id=a}), which RFC 9112 section 3.2.2 requires servers to accept.
 */
public record RequestTarget(String path, @Nullable String query) {

  static RequestTarget parse(String target) {
    int pathStart = pathStart(target);
    int queryStart = target.indexOf('?', pathStart);
    if (queryStart < 0) return new RequestTarget(pathOrRoot(target.substring(pathStart)), null);
    return new RequestTarget(
        pathOrRoot(target.substring(pathStart, queryStart)), target.substring(queryStart + 1));
  }

  private static int pathStart(String target) {
    if (target.startsWith("/")) return 0;
    int scheme = target.indexOf("://");
    if (scheme < 0) return 0;
    int slash = target.indexOf('/', scheme + 3);
    int question = target.indexOf('?', scheme + 3);
    if (slash < 0 || (question >= 0 && question < slash)) {
      return question < 0 ? target.length() : question; // "http://host" or "http://host?q"
    }
    return slash;
  }

  private static String pathOrRoot(String path) {
    return path.isEmpty() ? "/" : path;
  }
}
