package dev.shale.server.tls;

import java.net.InetAddress;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Whether a certificate names a host, by the rules of HTTPS (RFC 9110 4.3.4, RFC 6125): an IP
 * address must be one of its IP subject alternative names, a host name one of its DNS names (a
 * leftmost {@code *} standing for exactly one label). The common name is not looked at, as
 * browsers and the JDK's "HTTPS" identification no longer do.
 *
 * <p>The dialing side of a peer connection leaves this to the JDK (endpoint identification); the
 * accepting side uses it to check that a peer's certificate names the member its HELLO says it is.
 */
final class HostNames {
  private static final int DNS_NAME = 2;
  private static final int IP_ADDRESS = 7;

  private HostNames() {}

  /** Whether {@code certificate} names {@code host} (a name, or an IPv4 or IPv6 literal without brackets). */
  static boolean names(X509Certificate certificate, String host) {
    Collection<List<?>> names;
    try {
      names = certificate.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      return false;
    }
    if (names == null) return false;
    @Nullable InetAddress address = literal(host);
    for (List<?> name : names) {
      int type = (Integer) name.get(0);
      String value = String.valueOf(name.get(1));
      if (address != null && type == IP_ADDRESS && address.equals(literal(value))) return true;
      if (address == null && type == DNS_NAME && dnsMatches(value, host)) return true;
    }
    return false;
  }

  private static boolean dnsMatches(String pattern, String host) {
    String p = pattern.toLowerCase(Locale.ROOT);
    String h = host.toLowerCase(Locale.ROOT);
    if (!p.startsWith("*.")) return p.equals(h);
    int dot = h.indexOf('.');
    return dot > 0 && h.substring(dot).equals(p.substring(1));
  }

  // An IP literal as an address; null for a host name (no lookup: a name is compared as a name).
  private static @Nullable InetAddress literal(String host) {
    if (host.isEmpty() || !(Character.digit(host.charAt(0), 16) >= 0 || host.indexOf(':') >= 0)) return null;
    try {
      return InetAddress.ofLiteral(host);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
