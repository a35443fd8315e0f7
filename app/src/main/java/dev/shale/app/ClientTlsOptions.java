package dev.shale.app;

import java.nio.file.Path;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The TLS options of a command that calls a node over HTTP ({@link ClientOptions}, {@link
 * AdminOptions}): whom to trust and which certificate to present when {@code --via} is https://.
 */
final class ClientTlsOptions {
  @Option(names = "--ca-cert", paramLabel = "<ca.pem>",
      description = "With an https:// --via: trust the node's certificate if this CA (PEM) issued it. Default: the JDK's trusted CAs.")
  @Nullable Path caCert;

  @Option(names = "--cert", paramLabel = "<chain.pem>",
      description = "With an https:// --via: present this client certificate (PEM chain; 'shale certs client' makes one) to a node that requires one.")
  @Nullable Path cert;

  @Option(names = "--key", paramLabel = "<key.pem>", description = "The private key of --cert (PEM).")
  @Nullable Path key;

  /** The TLS of calls to {@code via} (null: plain http); {@code usage} makes the error of options that do not fit. */
  @Nullable SSLContext context(String via, Function<String, ? extends RuntimeException> usage) {
    try {
      return ClientTls.forVia(via, caCert, cert, key);
    } catch (IllegalArgumentException e) {
      throw usage.apply(e.getMessage());
    }
  }
}
