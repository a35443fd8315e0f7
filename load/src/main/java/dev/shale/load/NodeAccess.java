package dev.shale.load;

import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * How the load commands reach a node that asks for credentials (a picocli mixin): the API token
 * every request carries, and the TLS of an {@code https://} URL. Shared by {@code shale load},
 * {@code knee} and {@code load report}, so that each reaches a secured node the same way.
 */
public final class NodeAccess {
  @Spec(Spec.Target.MIXEE) CommandSpec spec;

  @Option(names = "--token-file", paramLabel = "<file>",
      description = "A file holding the API token to send with every request (Authorization: Bearer), for a node started "
          + "with --auth tokens. Default: the SHALE_TOKEN environment variable, if set.")
  @Nullable Path tokenFile;

  @Option(names = "--ca-cert", paramLabel = "<ca.pem>",
      description = "With an https:// URL: trust the node's certificate when this CA (PEM) issued it. Default: the JDK's trusted roots.")
  @Nullable Path caCert;

  @Option(names = "--cert", paramLabel = "<chain.pem>",
      description = "With an https:// URL: present this client certificate chain (PEM) to a node that asks for one. Needs --key.")
  @Nullable Path cert;

  @Option(names = "--key", paramLabel = "<key.pem>", description = "The private key of --cert (PEM, unencrypted).")
  @Nullable Path key;

  /**
   * {@code node} with this command's token and, for an https:// URL, its TLS; a usage error (exit
   * 2) names the option that cannot be used.
   */
  LoadSpec applyTo(LoadSpec node) {
    boolean https = "https".equals(node.url().getScheme());
    if (!https && (caCert != null || cert != null || key != null)) {
      throw new ParameterException(spec.commandLine(), "--ca-cert, --cert and --key are for an https:// URL");
    }
    SslContext tls;
    try {
      tls = https ? LoadTls.context(caCert, cert, key) : null;
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    return node.withToken(token()).withTls(tls);
  }

  /** The API token of --token-file, else of SHALE_TOKEN; null: none. */
  private @Nullable String token() {
    if (tokenFile == null) {
      String fromEnv = System.getenv("SHALE_TOKEN");
      return fromEnv == null || fromEnv.isBlank() ? null : fromEnv.strip();
    }
    try {
      String secret = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
      if (secret.isEmpty()) throw new ParameterException(spec.commandLine(), "--token-file " + tokenFile + " is empty");
      return secret;
    } catch (IOException e) {
      throw new ParameterException(spec.commandLine(), "cannot read --token-file " + tokenFile + ": " + e.getMessage());
    }
  }
}
