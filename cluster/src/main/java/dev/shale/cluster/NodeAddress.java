package dev.shale.cluster;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * One node of a cluster: the host and port of its HTTP API, as {@code --cluster} names it.
 *
 * @param host the host as written in the URL, lower-cased, IPv6 literals without brackets
 * @param port the TCP port (80 when the URL gives none)
 */
public record NodeAddress(String host, int port) {

  public NodeAddress {
    if (host == null || host.isEmpty()) throw new IllegalArgumentException("host must not be empty");
    if (port < 1 || port > 65535) throw new IllegalArgumentException("port must be in [1, 65535]: " + port);
    host = host.toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a bare {@code http://host[:port][/]} URL.
   *
   * @throws IllegalArgumentException naming the URL and what is wrong with it
   */
  public static NodeAddress parse(String url) {
    URI uri;
    try {
      uri = new URI(url.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("'" + url + "' is not a URL: " + e.getReason());
    }
    if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
      throw new IllegalArgumentException("'" + url + "' is not an http://host:port URL");
    }
    String path = uri.getRawPath();
    boolean bare = (path == null || path.isEmpty() || path.equals("/"))
        && uri.getRawQuery() == null && uri.getRawFragment() == null && uri.getRawUserInfo() == null;
    if (!bare) {
      throw new IllegalArgumentException("'" + url + "' must be a bare http://host:port URL, without a path, query or user");
    }
    return new NodeAddress(unbracket(uri.getHost()), uri.getPort() < 0 ? 80 : uri.getPort());
  }

  /**
   * The node whose {@link #id} is {@code id} ({@code host:port}, an IPv6 host in brackets), as
   * files and frames name nodes.
   *
   * @throws IllegalArgumentException naming the id and what is wrong with it
   */
  public static NodeAddress ofId(String id) {
    return parse("http://" + id);
  }

  /**
   * The node's identity in placement: {@code host:port}. Every node must name a node the same
   * way (same host spelling) for all of them to agree on where a key lives.
   */
  public String id() {
    return hostForUrl() + ":" + port;
  }

  /** {@code http://host:port}, without a trailing slash. */
  public String url() {
    return "http://" + id();
  }

  private String hostForUrl() {
    return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
  }

  private static String unbracket(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  @Override
  public String toString() {
    return url();
  }
}
