package dev.shale.app;

import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Env;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options of every {@code shale nodes} command: the node to ask ({@code --via}) and the
 * cluster secret to sign with. A command mixes them in ({@code @Mixin AdminOptions admin;}) and
 * calls {@code admin.client()}.
 */
final class AdminOptions {
  @Spec(Spec.Target.MIXEE) CommandSpec spec;

  @Option(names = "--via", paramLabel = "<url>", required = true,
      description = "A node of the cluster, as its base URL (e.g. http://10.0.0.1:8080, or https:// for a node serving TLS): the call goes to it.")
  String via;

  @Mixin ClientTlsOptions tls;

  @Option(names = "--cluster-secret-file", paramLabel = "<file>",
      description = "A file holding the cluster secret (as given to the nodes), to sign the call with. "
          + "Without it (or --cluster-secret) the call goes unsigned, which only a node without a secret takes.")
  @Nullable Path clusterSecretFile;

  @Option(names = "--cluster-secret", paramLabel = "<secret>",
      description = "The cluster secret itself. Prefer --cluster-secret-file: a command line is visible to other users.")
  @Nullable String clusterSecret;

  @Option(names = "--admin-secret-file", paramLabel = "<file>",
      description = "A file holding the admin secret of a node started with --admin-secret-file (a node without a "
          + "cluster), to sign the call with.")
  @Nullable Path adminSecretFile;

  @Option(names = "--token-file", paramLabel = "<file>",
      description = "A file holding an API token with the admin scope, for a node started with --auth tokens "
          + "(sent as Authorization: Bearer). Default: the SHALE_TOKEN environment variable, if set.")
  @Nullable Path tokenFile;

  @Option(names = "--timeout", paramLabel = "<ms>", defaultValue = "3600000",
      description = "Longest the call may take, from connecting to its answer. Default: ${DEFAULT-VALUE} (1 h).")
  long timeoutMillis;

  /** A client of the {@code --via} node that signs with the secret given; a usage error if an option is wrong. */
  AdminClient client() {
    NodeAddress node;
    try {
      node = ClientTls.parseVia(via);
    } catch (IllegalArgumentException e) {
      throw usage("--via: " + e.getMessage());
    }
    return client(node);
  }

  /** A client of {@code node} (a member the --via node named) that signs as {@link #client()} does. */
  AdminClient client(NodeAddress node) {
    if (timeoutMillis < 1) throw usage("--timeout must be at least 1 ms: " + timeoutMillis);
    @Nullable SSLContext context = tls.context(via, this::usage);
    return new AdminClient(node, context, signatures(), Duration.ofMillis(timeoutMillis),
        BearerToken.resolve(tokenFile, System.getenv(), this::usage));
  }

  private @Nullable AdminSignatures signatures() {
    if (adminSecretFile != null && (clusterSecret != null || clusterSecretFile != null)) {
      throw usage("give either --admin-secret-file (a node without a cluster) or the cluster secret, not both");
    }
    byte[] secret = adminSecretFile != null
        ? SecretFile.read(adminSecretFile, "--admin-secret-file", this::usage)
        : SecretFile.fromOptions(clusterSecret, clusterSecretFile, this::usage);
    if (secret == null) return null;
    try {
      return AdminSignatures.withSecret(secret, Env.real()::wallMillis);
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  private ParameterException usage(@Nullable String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
