package dev.shale.load;

import io.netty.channel.Channel;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The TLS of a run against an {@code https://} node: one client context (the JDK's provider)
 * that the generator's Netty connections and the JDK HttpClient of its status and admin calls
 * share. It trusts {@code --ca-cert} (else the JDK's trusted roots), presents {@code --cert} and
 * {@code --key} when the node asks for a client certificate, and checks that the node's
 * certificate names the URL's host, as any HTTPS client does.
 */
final class LoadTls {
  private LoadTls() {}

  /**
   * The context for {@code caCert}, {@code cert} and {@code key} (each may be null; cert and key
   * go together); IllegalArgumentException with one line naming the file that cannot be used.
   */
  static SslContext context(@Nullable Path caCert, @Nullable Path cert, @Nullable Path key) {
    if ((cert == null) != (key == null)) throw new IllegalArgumentException("--cert and --key go together");
    SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).endpointIdentificationAlgorithm("HTTPS");
    try {
      if (caCert != null) builder.trustManager(readable(caCert, "--ca-cert").toFile());
      if (cert != null && key != null) builder.keyManager(readable(cert, "--cert").toFile(), readable(key, "--key").toFile());
      return builder.build();
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot use the TLS files (--ca-cert, --cert, --key): " + e.getMessage(), e);
    }
  }

  /** Adds the TLS handler first in {@code channel}'s pipeline when {@code spec} runs over TLS. */
  static void addTo(Channel channel, LoadSpec spec) {
    SslContext tls = spec.tls();
    if (tls == null) return;
    URI url = spec.url();
    channel.pipeline().addFirst(tls.newHandler(channel.alloc(), url.getHost(), EventLoops.port(url)));
  }

  /** An HttpClient builder for {@code spec}'s node: with the run's TLS context when it has one. */
  static HttpClient.Builder httpClient(LoadSpec spec) {
    HttpClient.Builder builder = HttpClient.newBuilder();
    if (spec.tls() instanceof JdkSslContext jdk) builder.sslContext(jdk.context());
    return builder;
  }

  private static Path readable(Path file, String option) throws IOException {
    if (!Files.isReadable(file)) throw new IOException(option + " " + file + " cannot be read");
    return file;
  }
}
