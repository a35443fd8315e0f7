package dev.shale.server.tls;

import dev.shale.storage.SuppressForbidden;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.jspecify.annotations.Nullable;

/**
 * Certificates and private keys in PEM files. Certificates: one or more {@code CERTIFICATE}
 * blocks (a chain: the leaf first). Keys are written as unencrypted PKCS#8 ({@code PRIVATE KEY})
 * and read in that form or OpenSSL's ({@code EC PRIVATE KEY}, {@code RSA PRIVATE KEY}).
 * Every read failure is an {@link IOException} that names the file.
 *
 * <p>On the real filesystem, not a {@code Vfs}: these are the operator's credentials, read at a
 * start and by {@code shale certs}, written with POSIX permissions (a key 0600) the Vfs does not
 * model; no crash or fault test of the store involves them.
 */
@SuppressForbidden(reason = "the operator's TLS credentials, written with POSIX permissions the Vfs does not model")
public final class PemFiles {
  private static final Set<PosixFilePermission> OWNER_ONLY =
      EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

  private PemFiles() {}

  /** The certificates in {@code file}, in file order; at least one, or an IOException. */
  public static List<X509Certificate> readCertificates(Path file) throws IOException {
    List<X509Certificate> certificates = new ArrayList<>();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(reader)) {
      for (Object block = parser.readObject(); block != null; block = parser.readObject()) {
        if (!(block instanceof X509CertificateHolder holder)) {
          throw new IOException(file + " holds a " + kindOf(block) + " where only certificates belong");
        }
        certificates.add(new JcaX509CertificateConverter().getCertificate(holder));
      }
    } catch (CertificateException | RuntimeException e) {
      // PEMParser reports bad base64 and bad DER as runtime exceptions.
      throw new IOException(file + " is not a PEM certificate file: " + e.getMessage(), e);
    } catch (IOException e) {
      throw named(file, e);
    }
    if (certificates.isEmpty()) throw new IOException(file + " holds no PEM certificate");
    return List.copyOf(certificates);
  }

  /** The one private key in {@code file}. */
  public static PrivateKey readPrivateKey(Path file) throws IOException {
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(reader)) {
      Object block = parser.readObject();
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      if (block instanceof PrivateKeyInfo info) return converter.getPrivateKey(info);
      if (block instanceof PEMKeyPair pair) return converter.getPrivateKey(pair.getPrivateKeyInfo());
      if (block == null) throw new IOException(file + " holds no PEM private key");
      throw new IOException(file + " holds a " + kindOf(block) + ", not an unencrypted private key");
    } catch (RuntimeException e) {
      throw new IOException(file + " is not a PEM private key file: " + e.getMessage(), e);
    } catch (IOException e) {
      throw named(file, e);
    }
  }

  /** Writes {@code certificates} to {@code file} (replaced atomically), readable by all. */
  public static void writeCertificates(Path file, List<X509Certificate> certificates) throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      for (X509Certificate certificate : certificates) writer.writeObject(certificate);
    }
    replace(file, text.toString(), null);
  }

  /** Writes {@code key} as PKCS#8 PEM to {@code file} (replaced atomically), readable by its owner only (0600). */
  public static void writePrivateKey(Path file, PrivateKey key) throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      writer.writeObject(new JcaPKCS8Generator(key, null));
    }
    replace(file, text.toString(), OWNER_ONLY);
  }

  /**
   * Writes {@code text} to a temporary file beside {@code file}, made with {@code permissions}
   * (so a key is never readable by others, not even for a moment), then moves it over
   * {@code file}: a reader (a node reloading its certificate) sees the old file or the new one.
   */
  private static void replace(Path file, String text, @Nullable Set<PosixFilePermission> permissions) throws IOException {
    Path absolute = file.toAbsolutePath();
    Path directory = Objects.requireNonNull(absolute.getParent(), "an absolute file has a parent");
    Path temporary = directory.resolve("." + absolute.getFileName() + ".tmp");
    Files.deleteIfExists(temporary);
    try {
      if (permissions != null && directory.getFileSystem().supportedFileAttributeViews().contains("posix")) {
        Files.createFile(temporary, PosixFilePermissions.asFileAttribute(permissions));
      } else {
        Files.createFile(temporary);
      }
      Files.writeString(temporary, text, StandardCharsets.US_ASCII);
      try {
        Files.move(temporary, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, absolute, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (FileAlreadyExistsException e) {
      throw new IOException("cannot write " + file + ": " + temporary + " appeared while writing it", e);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  private static IOException named(Path file, IOException e) {
    String message = String.valueOf(e.getMessage());
    if (message.contains(file.toString())) return e;
    return new IOException("cannot read " + file + ": " + e.getClass().getSimpleName() + " " + message, e);
  }

  private static String kindOf(Object block) {
    return block.getClass().getSimpleName();
  }
}
