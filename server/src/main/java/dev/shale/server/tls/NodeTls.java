package dev.shale.server.tls;

import io.netty.handler.ssl.SslContext;
import io.netty.util.AttributeKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The TLS of a node's port: the SslContext new connections get, reloaded when the files of its
 * {@link TlsFiles} change (docs/operations.md, "Rotating certificates").
 *
 * <p>{@link #reloadIfChanged} is called about every second (the server schedules it): it compares
 * each file's modification time, size and inode with what it last loaded, and only when one
 * differs reads and checks the files again. A good new pair becomes the context of new connections;
 * connections already open keep the one they shook hands with. A bad new pair (a key that is not
 * the certificate's, an expired certificate, a half-written file) leaves the old context in place
 * and is logged once, when it has stayed the same for two polls: replacing two files is not
 * atomic, and the moment between the key's replacement and the certificate's is not an error.
 *
 * <p>Thread safe: {@link #current} from any event loop; {@link #reloadIfChanged} from one thread at a time.
 */
public final class NodeTls {
  private static final System.Logger LOG = System.getLogger(NodeTls.class.getName());
  /** On every connection of a TLS port: the node's TLS, for /v0/status. */
  public static final AttributeKey<NodeTls> OF_CONNECTION = AttributeKey.valueOf(NodeTls.class, "tls");

  private final TlsFiles files;
  private final LongSupplier wallMillis;
  private volatile Loaded loaded;
  // The stamp of files that failed to load at the last poll, and whether that failure was logged.
  private @Nullable List<Object> failedStamp;
  private boolean failureLogged;

  /** The credentials and context in force, and the stamp of the files they were read from. */
  private record Loaded(ServerCredentials credentials, SslContext context, List<Object> stamp) {}

  private NodeTls(TlsFiles files, LongSupplier wallMillis, Loaded loaded) {
    this.files = files;
    this.wallMillis = wallMillis;
    this.loaded = loaded;
  }

  /**
   * Reads and checks {@code files} at the time {@code wallMillis} tells (the node's wall clock);
   * a node that gets a TlsSetupException here does not start.
   */
  public static NodeTls open(TlsFiles files, LongSupplier wallMillis) throws TlsSetupException {
    return new NodeTls(files, wallMillis, load(files, wallMillis));
  }

  /** The context for a new connection. */
  public SslContext current() {
    return loaded.context;
  }

  /** The credentials in force. */
  public ServerCredentials credentials() {
    return loaded.credentials;
  }

  /** The certificate in force, for /v0/status: its subject, issuer and validity (no key material). */
  public String statusJson() {
    var certificate = loaded.credentials.certificate();
    return "{\"subject\": \"" + jsonEscape(certificate.getSubjectX500Principal().getName())
        + "\", \"issuer\": \"" + jsonEscape(certificate.getIssuerX500Principal().getName())
        + "\", \"notBefore\": \"" + certificate.getNotBefore().toInstant()
        + "\", \"notAfter\": \"" + certificate.getNotAfter().toInstant()
        + "\", \"clientCertificates\": " + (loaded.credentials.clientCas().isEmpty() ? "\"none\"" : "\"required\"") + "}";
  }

  /** Reloads the files if they changed since they were last loaded; true when a new context is in force. */
  public boolean reloadIfChanged() {
    List<Object> stamp;
    try {
      stamp = stamp(files);
    } catch (IOException e) {
      return failed(List.of(String.valueOf(e.getMessage())), "cannot read " + e.getMessage());
    }
    if (stamp.equals(loaded.stamp)) return false;
    try {
      Loaded next = load(files, wallMillis);
      // Read after the load: files replaced while it read are loaded again at the next poll.
      loaded = new Loaded(next.credentials, next.context, stamp.equals(next.stamp) ? stamp : List.of());
      failedStamp = null;
      LOG.log(System.Logger.Level.INFO, "TLS: new connections now get the certificate "
          + next.credentials.certificate().getSubjectX500Principal().getName() + ", valid to "
          + next.credentials.certificate().getNotAfter().toInstant() + ", from " + files.certificateChain());
      return true;
    } catch (TlsSetupException e) {
      return failed(stamp, String.valueOf(e.getMessage()));
    }
  }

  private boolean failed(List<Object> stamp, String reason) {
    if (!stamp.equals(failedStamp)) {
      failedStamp = stamp;
      failureLogged = false;
    } else if (!failureLogged) {
      failureLogged = true;
      LOG.log(System.Logger.Level.WARNING, "TLS: keeping the certificate in force ("
          + loaded.credentials.certificate().getSubjectX500Principal().getName() + "): the new files cannot be used: " + reason);
    }
    return false;
  }

  private static Loaded load(TlsFiles files, LongSupplier wallMillis) throws TlsSetupException {
    List<Object> stamp;
    try {
      stamp = stamp(files);
    } catch (IOException e) {
      stamp = List.of(); // the load below names the file it cannot read
    }
    ServerCredentials credentials = ServerCredentials.load(files, Instant.ofEpochMilli(wallMillis.getAsLong()));
    return new Loaded(credentials, TlsContexts.server(credentials), stamp);
  }

  /** What identifies the files' contents without reading them: per file its mtime, size and inode. */
  private static List<Object> stamp(TlsFiles files) throws IOException {
    List<Object> stamp = new ArrayList<>();
    for (Path file : new Path[] {files.certificateChain(), files.key(), files.clientCa()}) {
      if (file == null) continue;
      try {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        stamp.add(attributes.lastModifiedTime().toMillis());
        stamp.add(attributes.size());
        stamp.add(Objects.requireNonNullElse(attributes.fileKey(), ""));
      } catch (IOException e) {
        throw new IOException(file + ": " + e.getClass().getSimpleName(), e);
      }
    }
    return List.copyOf(stamp);
  }

  private static String jsonEscape(String text) {
    return text.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
