package dev.shale.server.tls;

import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Builds the certificates of {@link CertificateAuthority}: ECDSA P-256 keys, SHA256withECDSA
 * signatures, a random 127-bit serial (RFC 5280: positive, at most 20 bytes; random, so two
 * certificates of one CA never share one), subject and authority key identifiers (so that
 * verifiers find the issuer among several CAs, as during a rotation).
 */
final class CertificateBuilder {
  static final String SIGNATURE_ALGORITHM = "SHA256withECDSA";
  // A DNS name (RFC 1123 labels) or a wildcard's first label; checked so a typo fails here
  // rather than as a mysterious hostname mismatch at the first handshake.
  private static final Pattern DNS_NAME =
      Pattern.compile("(\\*\\.)?([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");
  private static final SecureRandom RANDOM = new SecureRandom();

  private CertificateBuilder() {}

  static KeyPair newKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK makes no ECDSA P-256 keys", e);
    }
  }

  static X500Name commonName(String name) {
    if (name.isBlank()) throw new IllegalArgumentException("a certificate's common name must not be blank");
    return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, name).build();
  }

  /** A self-signed CA certificate for {@code keys}. */
  static X509Certificate selfSignedCa(X500Name subject, KeyPair keys, Instant notBefore, Instant notAfter) {
    checkValidity(notBefore, notAfter);
    try {
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder = start(subject, subject, keys.getPublic(), notBefore, notAfter)
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature))
          .addExtension(Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(keys.getPublic()))
          .addExtension(Extension.authorityKeyIdentifier, false, extensions.createAuthorityKeyIdentifier(keys.getPublic()));
      return sign(builder, keys.getPrivate());
    } catch (CertIOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot build a CA certificate", e);
    }
  }

  /**
   * An end-entity certificate for {@code subjectKey}, signed by {@code issuer}: not a CA,
   * digitalSignature, the extended key usages {@code purposes}, and the subject alternative
   * names {@code hostNamesAndAddresses} (none: no SAN extension).
   */
  static X509Certificate endEntity(X500Name subject, PublicKey subjectKey, List<String> hostNamesAndAddresses,
      List<KeyPurposeId> purposes, X509Certificate issuer, PrivateKey issuerKey, Instant notBefore, Instant notAfter) {
    checkValidity(notBefore, notAfter);
    GeneralNames names = subjectAlternativeNames(hostNamesAndAddresses);
    try {
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder = start(X500Name.getInstance(issuer.getSubjectX500Principal().getEncoded()),
          subject, subjectKey, notBefore, notAfter)
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
          .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes.toArray(KeyPurposeId[]::new)))
          .addExtension(Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(subjectKey))
          .addExtension(Extension.authorityKeyIdentifier, false, extensions.createAuthorityKeyIdentifier(issuer));
      if (names.getNames().length > 0) builder.addExtension(Extension.subjectAlternativeName, false, names);
      return sign(builder, issuerKey);
    } catch (CertIOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot build a certificate", e);
    }
  }

  /** Each entry as an IP address (a literal) or a DNS name; anything else is an IllegalArgumentException. */
  static GeneralNames subjectAlternativeNames(List<String> hostNamesAndAddresses) {
    List<GeneralName> names = new ArrayList<>();
    for (String entry : hostNamesAndAddresses) {
      String host = entry.strip();
      if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
      if (isAddressLiteral(host)) {
        names.add(new GeneralName(GeneralName.iPAddress, host));
      } else if (host.length() <= 253 && DNS_NAME.matcher(host).matches() && !host.matches("[0-9.]+")) {
        names.add(new GeneralName(GeneralName.dNSName, host));
      } else {
        throw new IllegalArgumentException("not a host name or IP address: '" + entry + "'");
      }
    }
    return new GeneralNames(names.toArray(GeneralName[]::new));
  }

  private static boolean isAddressLiteral(String host) {
    try {
      InetAddress.ofLiteral(host); // parses literals only: never a DNS lookup
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static void checkValidity(Instant notBefore, Instant notAfter) {
    if (!notAfter.isAfter(notBefore)) {
      throw new IllegalArgumentException("a certificate's validity must end after it starts: " + notBefore + " .. " + notAfter);
    }
  }

  private static X509v3CertificateBuilder start(X500Name issuer, X500Name subject, PublicKey key, Instant notBefore, Instant notAfter) {
    BigInteger serial = new BigInteger(127, RANDOM).add(BigInteger.ONE);
    return new JcaX509v3CertificateBuilder(issuer, serial, Date.from(notBefore), Date.from(notAfter), subject, key);
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key) throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter().getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE_ALGORITHM).build(key)));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException("cannot sign with " + SIGNATURE_ALGORITHM, e);
    }
  }
}
