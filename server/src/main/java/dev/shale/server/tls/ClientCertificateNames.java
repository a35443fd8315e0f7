package dev.shale.server.tls;

import dev.shale.cluster.auth.ApiToken;
import dev.shale.cluster.auth.CertificateIdentity;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;

/**
 * The token a verified client certificate names (docs/design.md, "Client certificates"): its
 * subject's one common name, as etcd and CockroachDB read a client certificate's user. Not a
 * subject alternative name: {@code shale certs} puts host names there, for nodes, and a client
 * certificate has none. A certificate for serving (extended key usage serverAuth: a node's, as
 * {@code shale certs node} makes) names no token even when its CN spells one: a node's
 * certificate lies on every node's disk and must not double as a client's credential.
 */
final class ClientCertificateNames {
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

  private ClientCertificateNames() {}

  /** What {@code certificate}, verified as a client's by the handshake, names. */
  static CertificateIdentity of(X509Certificate certificate) {
    String subject = certificate.getSubjectX500Principal().getName();
    if (servesAsNode(certificate)) {
      return new CertificateIdentity.Unnamed("the certificate (" + subject + ") is a node certificate (extended key usage serverAuth), "
          + "which names no token; use a client certificate (shale certs client --name TOKEN) or an API token");
    }
    RDN[] commonNames = X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded()).getRDNs(BCStyle.CN);
    if (commonNames.length != 1 || commonNames[0].isMultiValued()) {
      return new CertificateIdentity.Unnamed("the client certificate (" + subject + ") does not have exactly one common name (CN), "
          + "which would name its token");
    }
    String name = IETFUtils.valueToString(commonNames[0].getFirst().getValue());
    try {
      ApiToken.checkName(name);
    } catch (IllegalArgumentException e) {
      return new CertificateIdentity.Unnamed("the client certificate's common name (" + subject + ") names no token: " + e.getMessage());
    }
    return new CertificateIdentity.Named(name, subject);
  }

  private static boolean servesAsNode(X509Certificate certificate) {
    try {
      List<String> purposes = certificate.getExtendedKeyUsage();
      return purposes != null && purposes.contains(SERVER_AUTH);
    } catch (CertificateParsingException e) {
      return true; // unreadable: the handshake took it, but it names no one with certainty
    }
  }
}
