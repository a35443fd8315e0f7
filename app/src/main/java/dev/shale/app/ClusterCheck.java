package dev.shale.app;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;

/**
 * Checks {@code --cluster}. Until clustering exists a node runs alone, so the list may only
 * name this very node: one {@code http://host:port} URL whose host is the listening host (or
 * an address of this machine when listening on all of them) and whose port is the listening
 * port. Anything else is refused with a reason, so that a node started as part of a cluster
 * never silently runs alone.
 */
final class ClusterCheck {
  private ClusterCheck() {}

  /** Returns null if {@code urls} is acceptable for a node on {@code host}:{@code port}, else why not. */
  static String problem(List<String> urls, String host, int port) {
    String self = "http://" + hostForUrl(host) + ":" + port;
    if (urls.isEmpty()) return "--cluster is empty: give this node's URL, " + self + ", or leave it out";
    for (String url : urls) {
      String malformed = malformed(url);
      if (malformed != null) return "--cluster: '" + url + "' " + malformed;
    }
    if (urls.size() > 1) {
      return "multi-node clusters are not supported yet: --cluster lists " + urls.size() + " URLs ("
          + String.join(", ", urls) + "); give only this node's URL, " + self + ", or leave it out";
    }
    URI uri = URI.create(urls.getFirst());
    if (portOf(uri) != port || !sameHost(uri.getHost(), host)) {
      return "--cluster must name this node, " + self + ", not " + urls.getFirst()
          + " (multi-node clusters are not supported yet)";
    }
    return null;
  }

  private static String malformed(String url) {
    URI uri;
    try {
      uri = new URI(url.trim());
    } catch (URISyntaxException e) {
      return "is not a URL: " + e.getReason();
    }
    if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
      return "is not an http://host:port URL";
    }
    boolean bare = (uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))
        && uri.getRawQuery() == null && uri.getRawFragment() == null && uri.getRawUserInfo() == null;
    return bare ? null : "must be a bare http://host:port URL, without a path, query or user";
  }

  private static int portOf(URI uri) {
    return uri.getPort() < 0 ? 80 : uri.getPort();
  }

  private static boolean sameHost(String urlHost, String listenHost) {
    String a = unbracket(urlHost).toLowerCase(Locale.ROOT);
    String b = unbracket(listenHost).toLowerCase(Locale.ROOT);
    if (a.equals(b)) return true;
    try {
      InetAddress url = InetAddress.getByName(a);
      InetAddress listen = InetAddress.getByName(b);
      if (url.equals(listen)) return true;
      // Listening on every address: the URL names this node if it names this machine.
      return listen.isAnyLocalAddress() && isThisMachine(url);
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static boolean isThisMachine(InetAddress address) {
    try {
      return address.isLoopbackAddress() || NetworkInterface.getByInetAddress(address) != null;
    } catch (SocketException e) {
      return false;
    }
  }

  private static String unbracket(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  private static String hostForUrl(String host) {
    return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
  }
}
