package dev.shale.cluster.membership;

/** Checks and derives the {@code host:port} where a member's Raft server listens. */
public final class RaftAddress {
  /** The default Raft port is the HTTP port plus this, or minus it when the sum does not fit. */
  public static final int DEFAULT_OFFSET = 10_000;

  private RaftAddress() {}

  /**
   * The default Raft port of a node whose HTTP port is {@code httpPort}: {@code httpPort + 10000},
   * or {@code httpPort - 10000} above 55535. Every node derives it the same way, which is how a
   * {@code --cluster} bootstrap knows every member's Raft address; nodes on consecutive HTTP ports
   * get consecutive Raft ports.
   *
   * @throws IllegalArgumentException for an HTTP port whose Raft port would be below 1
   */
  public static int defaultPort(int httpPort) {
    int up = httpPort + DEFAULT_OFFSET;
    if (up <= 65_535) return up;
    int down = httpPort - DEFAULT_OFFSET;
    if (down < 1) throw new IllegalArgumentException("no default Raft port for HTTP port " + httpPort);
    return down;
  }

  /** {@code host:port}; a host with a colon (IPv6) in brackets. */
  public static String of(String host, int port) {
    String h = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    return check(h + ":" + port);
  }

  /**
   * @return {@code address} when it is {@code host:port} with a port in [1, 65535] and no white space
   * @throws IllegalArgumentException saying what is wrong
   */
  public static String check(String address) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || address.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("'" + address + "' is not a host:port Raft address");
    }
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + address + "' is not a host:port Raft address", e);
    }
    if (port < 1 || port > 65_535) throw new IllegalArgumentException("Raft port must be in [1, 65535]: " + address);
    return address;
  }
}
