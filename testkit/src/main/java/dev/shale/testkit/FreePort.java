package dev.shale.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP port on loopback that was free a moment ago, and that no earlier call in this JVM handed
 * out: the kernel may give the same ephemeral port to two binds in a row once the first socket
 * is closed, and a test that asks for three ports for three nodes must get three (a cluster test
 * once got one port twice and refused to start).
 */
public final class FreePort {
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private FreePort() {}

  public static int find() {
    while (true) {
      int port;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        socket.setReuseAddress(true);
        port = socket.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException("no free port on loopback", e);
      }
      // Bounded: past a few thousand ports, those handed out long ago may come round again.
      if (HANDED_OUT.size() >= 8192) HANDED_OUT.clear();
      if (HANDED_OUT.add(port)) return port;
    }
  }

  /** Whether {@code port} on loopback can be listened on right now. */
  public static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
