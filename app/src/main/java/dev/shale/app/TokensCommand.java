package dev.shale.app;

import dev.shale.cluster.auth.TokenSecrets;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import dev.shale.server.Reasons;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code shale tokens}: adds, lists and revokes the API tokens of a node or a cluster through
 * {@code /v0/admin/tokens} (README, "API tokens"), with an admin token ({@code --token-file}) or
 * the cluster secret; and makes a secret for {@code --admin-token-file}.
 */
@Command(
    name = "tokens",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Adds, lists and revokes the API tokens of a node or cluster.",
      "Each command goes to the --via node with an admin token (--token-file, or SHALE_TOKEN) or the",
      "cluster secret; a cluster agrees on its tokens, so any member will do.",
      ""
    },
    subcommands = {TokensCommand.Add.class, TokensCommand.ListTokens.class, TokensCommand.Revoke.class, TokensCommand.NewSecret.class})
final class TokensCommand implements Callable<Integer> {
  static final String PATH = "/v0/admin/tokens";

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "missing subcommand: try 'shale tokens --help'");
  }

  @Command(name = "add", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, usageHelpWidth = 100,
      description = {
        "Adds a token and prints its secret, once: the node keeps only its hash.",
        "The secret is the only line on standard output (shale tokens add NAME ... > NAME.token).",
        ""
      })
  static final class Add implements Callable<Integer> {
    private static final Pattern SECRET = Pattern.compile("\"secret\": \"([^\"]+)\"");
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin;

    @Parameters(index = "0", paramLabel = "NAME", description = "The token's name: 1 to 64 of A-Z a-z 0-9 . _ -.")
    String name;

    @Option(names = "--scope", paramLabel = "<scopes>", required = true,
        description = "What it may do, comma-separated: read (GET, scans), write (PUT, DELETE), admin (/v0/admin/...), metrics (/metrics).")
    String scopes;

    @Option(names = "--prefix", paramLabel = "<prefix>",
        description = "Limit its reads and writes to keys starting with this (repeatable). Default: every key.")
    List<String> prefixes = new ArrayList<>();

    @Override
    public Integer call() {
      StringBuilder target = new StringBuilder(PATH).append("?name=").append(encode(name)).append("&scope=").append(encode(scopes));
      for (String prefix : prefixes) target.append("&prefix=").append(encode(prefix));
      String answer = admin.client().post(target.toString());
      Matcher secret = SECRET.matcher(answer);
      if (!secret.find()) throw new AdminCallException("the node's answer holds no secret: " + Reasons.oneLine(answer));
      spec.commandLine().getOut().println(secret.group(1));
      spec.commandLine().getErr().println("added token " + name + " (" + scopes + (prefixes.isEmpty() ? "" : "; prefixes " + prefixes)
          + "); its secret, above, is not shown again");
      return 0;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, usageHelpWidth = 100,
      description = {"Lists the tokens: name, scopes, prefixes, when added. Never a secret.", ""})
  static final class ListTokens implements Callable<Integer> {
    private static final Pattern TOKEN = Pattern.compile(
        "\\{\"name\": \"([^\"]*)\", \"scopes\": \\[([^\\]]*)\\], \"prefixes\": \\[([^\\]]*)\\], \"created\": (\\d+)\\}");
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin;

    @Override
    public Integer call() {
      String answer = admin.client().get(PATH);
      PrintWriter out = spec.commandLine().getOut();
      out.printf("%-24s  %-28s  %-24s  %s%n", "NAME", "SCOPES", "CREATED", "PREFIXES");
      Matcher token = TOKEN.matcher(answer);
      while (token.find()) {
        out.printf("%-24s  %-28s  %-24s  %s%n", token.group(1), words(token.group(2)),
            Instant.ofEpochMilli(Long.parseLong(token.group(4))), token.group(3).isEmpty() ? "(every key)" : words(token.group(3)));
      }
      return 0;
    }

    private static String words(String jsonStrings) {
      return jsonStrings.replace("\"", "").replace(" ", "");
    }
  }

  @Command(name = "revoke", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, usageHelpWidth = 100,
      description = {"Revokes a token: every node refuses it (401) once it applied the change, within a second.", ""})
  static final class Revoke implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin;

    @Parameters(index = "0", paramLabel = "NAME", description = "The token's name.")
    String name;

    @Override
    public Integer call() {
      admin.client().call("DELETE", PATH + "?name=" + encode(name), new byte[0]);
      spec.commandLine().getOut().println("revoked token " + name);
      return 0;
    }
  }

  @Command(name = "new-secret", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, usageHelpWidth = 100,
      description = {"Prints a new random token secret, for --admin-token-file (shale tokens new-secret > admin.token).", ""})
  static final class NewSecret implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      spec.commandLine().getOut().println(TokenSecrets.newSecret(new SecureRandom()));
      return 0;
    }
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }
}
