package dev.shale.app;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What {@code shale cluster} prints once its nodes serve: how to call them, with curl and with
 * {@code ./shale}, as lines to paste into a shell. With credentials ({@link
 * LocalClusterCredentials}), the CA to trust and the admin token to send; {@code --insecure}: plain
 * URLs.
 */
final class LocalClusterUsage {
  // Paths of these characters need no quoting in a POSIX shell; others are single-quoted.
  private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9_./:=@%+,-]+");

  private LocalClusterUsage() {}

  /** Prints how to call the node at {@code url} (any node serves any key). */
  static void print(PrintWriter out, String url, @Nullable LocalClusterCredentials credentials) {
    String key = "'" + url + "/v0/entity?id=greeting'";
    if (credentials == null) {
      out.println("plain HTTP and no API tokens (--insecure); try:");
      out.println("  curl -X PUT --data-binary hello " + key);
      out.println("  curl " + key);
      out.println("  ./shale put greeting hello --via " + url);
      out.println("  ./shale get greeting --via " + url);
      return;
    }
    String ca = quoted(credentials.caCertificate());
    String token = quoted(credentials.adminToken());
    out.println("TLS on every port and between the nodes (clients trust " + ca + "); API tokens required,");
    out.println("the admin token (every scope) in " + token + " (add tokens of fewer scopes: README, \"API tokens\"); try:");
    String curl = "  curl --cacert " + ca + " -H \"Authorization: Bearer $(cat " + token + ")\" ";
    out.println(curl + "-X PUT --data-binary hello " + key);
    out.println(curl + key);
    String shale = " --via " + url + " --ca-cert " + ca + " --token-file " + token;
    out.println("  ./shale put greeting hello" + shale);
    out.println("  ./shale get greeting" + shale);
  }

  static String quoted(Path path) {
    String text = path.toString();
    return SHELL_SAFE.matcher(text).matches() ? text : "'" + text.replace("'", "'\\''") + "'";
  }
}
