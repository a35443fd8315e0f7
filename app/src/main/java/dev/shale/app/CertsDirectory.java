package dev.shale.app;

import dev.shale.server.tls.CertificateAuthority;
import dev.shale.server.tls.IssuedCertificate;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options every {@code shale certs} command shares (--dir, --days, --overwrite) and what
 * they do with them: the file names in the directory, the refusal to replace a key, the CA's
 * loading, the validity period and the summary printed.
 */
final class CertsDirectory {
  static final String CA_CERTIFICATE = "ca.crt";
  static final String CA_KEY = "ca.key";
  // Certificates start an hour before they are made: a machine whose clock is a little behind
  // this one's must not find a new certificate "not yet valid".
  static final Duration BACKDATE = Duration.ofHours(1);
  // A name goes into file names: no separators, no leading dot, nothing a shell would expand.
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}");

  @Spec(Spec.Target.MIXEE) CommandSpec spec;

  @Option(names = "--dir", required = true, paramLabel = "<dir>",
      description = "The directory of the certificates and keys (made if missing); the CA's files are read from it.")
  Path dir;

  @Option(names = "--days", paramLabel = "<days>",
      description = "How many days the certificate is valid. Default: 3650 for a CA, 365 for the others.")
  @Nullable Integer days;

  @Option(names = "--overwrite",
      description = "Replace an existing certificate and key. Without it, an existing key is never replaced.")
  boolean overwrite;

  /** What the files of node {@code name}'s certificate and key are named before .crt and .key. */
  static String nodeFilePrefix(String name) {
    return "node." + name;
  }

  /** {@code name}, checked as the --name of a certificate (it is part of the files' names). */
  String checkedName(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new ParameterException(spec.commandLine(), "--name: 1 to 64 of A-Z a-z 0-9 . _ - (not starting with '.'), not '" + name + "'");
    }
    return name;
  }

  /** The validity period from now: [now - BACKDATE, now + days (or {@code defaultDays})]. */
  Instant[] validity(int defaultDays) {
    int chosen = days == null ? defaultDays : days;
    if (chosen < 1 || chosen > 36500) {
      throw new ParameterException(spec.commandLine(), "--days: from 1 to 36500, not " + chosen);
    }
    Instant now = Instant.now();
    return new Instant[] {now.minus(BACKDATE), now.plus(Duration.ofDays(chosen))};
  }

  /** The directory, made if missing; refuses (ToolFailure) when one of {@code files} exists and --overwrite was not given. */
  Path prepare(String... files) {
    for (String file : files) {
      if (Files.exists(dir.resolve(file)) && !overwrite) {
        throw new ToolFailure(dir.resolve(file) + " exists; pass --overwrite to replace it (the old key is then lost)");
      }
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new ToolFailure("cannot make the directory " + dir + ": " + e.getMessage(), e);
    }
    return dir;
  }

  /** The CA in the directory (ca.crt, ca.key). */
  CertificateAuthority loadCa() {
    Path certificate = dir.resolve(CA_CERTIFICATE);
    Path key = dir.resolve(CA_KEY);
    if (!Files.exists(certificate) || !Files.exists(key)) {
      throw new ToolFailure("no CA in " + dir + " (" + CA_CERTIFICATE + " and " + CA_KEY + "); make one with 'shale certs ca --dir "
          + dir + "'");
    }
    try {
      return CertificateAuthority.load(certificate, key);
    } catch (IOException e) {
      throw new ToolFailure("cannot read the CA: " + e.getMessage(), e);
    }
  }

  /** Writes {@code issued} as {@code prefix}.crt and {@code prefix}.key and prints what was written. */
  void write(IssuedCertificate issued, String prefix) {
    Path chain = dir.resolve(prefix + ".crt");
    Path key = dir.resolve(prefix + ".key");
    try {
      issued.writeTo(chain, key);
    } catch (IOException e) {
      throw new ToolFailure("cannot write " + chain + ": " + e.getMessage(), e);
    }
    print(issued.certificate(), chain, key);
  }

  /** Prints the files written and what the certificate says. */
  void print(X509Certificate certificate, Path certificateFile, Path keyFile) {
    PrintWriter out = spec.commandLine().getOut();
    out.println("wrote " + certificateFile + " and " + keyFile);
    out.println("  subject " + certificate.getSubjectX500Principal().getName() + ", issuer "
        + certificate.getIssuerX500Principal().getName());
    List<String> names = alternativeNames(certificate);
    if (!names.isEmpty()) out.println("  names " + String.join(", ", names));
    out.println("  valid from " + certificate.getNotBefore().toInstant() + " to " + certificate.getNotAfter().toInstant());
  }

  private static List<String> alternativeNames(X509Certificate certificate) {
    List<String> names = new ArrayList<>();
    try {
      Collection<List<?>> entries = certificate.getSubjectAlternativeNames();
      if (entries != null) for (List<?> entry : entries) names.add(String.valueOf(entry.get(1)));
    } catch (CertificateParsingException e) {
      names.add("(unreadable: " + e.getMessage() + ")");
    }
    return names;
  }
}
