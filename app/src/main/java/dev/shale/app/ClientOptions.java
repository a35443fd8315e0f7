package dev.shale.app;

import dev.shale.cluster.NodeAddress;
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
 * The options of the client commands ({@code shale get|put|delete|scan}): the node to ask, the
 * request's consistency, how long to wait. A command mixes them in ({@code @Mixin ClientOptions
 * node;}) and calls {@link #calls()}.
 */
final class ClientOptions {
  /** Where {@code shale server} listens unless told otherwise (its --host and --port defaults). */
  static final String DEFAULT_VIA = "http://127.0.0.1:8080";

  @Spec(Spec.Target.MIXEE) CommandSpec spec;

  @Option(names = "--via", paramLabel = "<url>", defaultValue = DEFAULT_VIA,
      description = "The node to ask, as its base URL (https:// for a node serving TLS); in a cluster any member. Default: ${DEFAULT-VALUE}.")
  String via;

  @Mixin ClientTlsOptions tls;

  @Option(names = "--ack", paramLabel = "<n>",
      description = "How many replicas must answer (a cluster's consistency; README, \"Cluster\"). Default: the node's, a majority of --from.")
  @Nullable Integer ack;

  @Option(names = "--from", paramLabel = "<n>",
      description = "Of how many replicas of the key (the first of its preference list). Default: the replication factor.")
  @Nullable Integer from;

  @Option(names = "--token-file", paramLabel = "<file>",
      description = "A file holding the API token to send (Authorization: Bearer) to a node started with --auth tokens. "
          + "Default: the SHALE_TOKEN environment variable, if set.")
  @Nullable Path tokenFile;

  @Option(names = "--timeout", paramLabel = "<ms>", defaultValue = "30000",
      description = "Longest the call may take, from connecting to its answer (a scan: to each entry). Default: ${DEFAULT-VALUE}.")
  long timeoutMillis;

  /** The calls to the {@code --via} node with these options; a usage error if one is wrong. */
  EntityCalls calls() {
    NodeAddress node;
    try {
      node = ClientTls.parseVia(via);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--via: " + e.getMessage());
    }
    @Nullable SSLContext context = tls.context(via, m -> new ParameterException(spec.commandLine(), m));
    if (timeoutMillis < 1) throw new ParameterException(spec.commandLine(), "--timeout must be at least 1 ms: " + timeoutMillis);
    if (ack != null && ack < 1) throw new ParameterException(spec.commandLine(), "--ack must be at least 1: " + ack);
    if (from != null && from < 1) throw new ParameterException(spec.commandLine(), "--from must be at least 1: " + from);
    String token = BearerToken.resolve(tokenFile, System.getenv(), m -> new ParameterException(spec.commandLine(), m));
    return new EntityCalls(node, context, consistencyQuery(), Duration.ofMillis(timeoutMillis), token);
  }

  /** {@code &ack=A&from=F} for what was given (the node checks them: a 400 says what is wrong). */
  private String consistencyQuery() {
    return (ack == null ? "" : "&ack=" + ack) + (from == null ? "" : "&from=" + from);
  }
}
