package dev.shale.cluster.membership;

/** Checks and derives the {@code host:port} where a member's Raft server listens. */
public final class RaftAddress {
  /** The default Raft port is the HTTP port plus this when the sum is below {@link #EPHEMERAL_FIRST}. */
  public static final int DEFAULT_OFFSET = 10_000;

  /**
   * Where Linux's ephemeral ports begin ({@code net.ipv4.ip_local_port_range}'s default, 32768 to
   * 60999): the kernel hands those out to outgoing connections, so a listening port among them may
   * be taken at any moment by a connection of any process. No default Raft port is in that range.
   */
  static final int EPHEMERAL_FIRST = 32_768;

  private RaftAddress() {}

  /**
   * The default Raft port of a node whose HTTP port is {@code httpPort}: {@code httpPort + 10000}
   * when that is below 32768 (the HTTP ports up to 22767: 8080 gives 18080); else
   * {@code httpPort - 20000} when that is below 32768 (up to 52767: 38080 gives 18080, 27160 gives
   * 7160); else {@code httpPort - 50000} (2768 to 15535). Every default is in [2768, 32767], below
   * the ephemeral ports. Every node derives it the same way, which is how a {@code --cluster}
   * bootstrap knows every member's Raft address (a member that restarts uses the address its
   * stored map records, whatever this rule says); nodes on consecutive HTTP ports get consecutive
   * Raft ports.
   *
   * @throws IllegalArgumentException for a port outside [1, 65535]
   */
  public static int defaultPort(int httpPort) {
    if (httpPort < 1 || httpPort > 65_535) throw new IllegalArgumentException("no default Raft port for HTTP port " + httpPort);
    if (httpPort + DEFAULT_OFFSET < EPHEMERAL_FIRST) return httpPort + DEFAULT_OFFSET;
    if (httpPort - 20_000 < EPHEMERAL_FIRST) return httpPort - 20_000;
    return httpPort - 50_000;
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
