package dev.shale.cluster.auth;

import java.security.MessageDigest;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Resolves a request's credentials to a {@link Principal}: its {@code Authorization: Bearer}
 * token, looked up by the SHA-256 of the secret in the node's {@link Tokens}, or the bootstrap
 * admin token given at start ({@code --admin-token-file}), which has every scope; without one, the
 * mutual-TLS client certificate of its connection, whose common name names a stored token
 * ({@link CertificateIdentity}). A bearer token, when sent, wins over the certificate: a client
 * holding both chooses per request, as with etcd, and a request never has two principals.
 *
 * <p>Never puts a secret in a reason: a reason says what was wrong, not what was sent.
 *
 * <p>Thread safe.
 */
public final class TokenAuth {
  /** The bootstrap admin token's name; no stored token may take it. */
  public static final String BOOTSTRAP_NAME = "bootstrap-admin";
  static final String SCHEME = "bearer";

  private final Tokens tokens;
  private final byte @Nullable [] bootstrapHash; // null: no --admin-token-file
  private final boolean requiredHere; // this node's --auth tokens

  public TokenAuth(Tokens tokens, @Nullable String bootstrapSecret, boolean requiredHere) {
    this.tokens = tokens;
    this.bootstrapHash = bootstrapSecret == null ? null : TokenSecrets.hash(bootstrapSecret);
    this.requiredHere = requiredHere;
  }

  public Tokens tokens() {
    return tokens;
  }

  /**
   * Whether client requests need a token now: this node was started with {@code --auth tokens},
   * or its cluster's set says a member was ({@link TokenSet#required}), so all members agree.
   */
  public boolean required() {
    return requiredHere || tokens.current().required();
  }

  /** What a request's credentials come to. */
  public sealed interface Resolution {
    /** No credentials at all. */
    record Missing() implements Resolution {}

    /** Credentials that name no principal: {@code reason} says what was wrong (one line, no secret). */
    record Unknown(String reason) implements Resolution {}

    /**
     * No bearer token, and a client certificate that names no token this node knows (or none at
     * all): {@code reason} says which (one line). Kept apart from {@link Unknown} so that a
     * health check presenting a certificate of no token still learns whether the node is up.
     */
    record Unmapped(String reason) implements Resolution {}

    record Known(Principal principal) implements Resolution {}
  }

  /**
   * Resolves the values of the request's {@code Authorization} headers (usually none or one) and,
   * when there are none, the client certificate of its connection ({@code certificate}; null:
   * the connection presented none that this node takes as a credential).
   */
  public Resolution resolve(List<String> authorization, @Nullable CertificateIdentity certificate) {
    if (!authorization.isEmpty() || certificate == null) return resolve(authorization);
    return switch (certificate) {
      case CertificateIdentity.Unnamed unnamed -> new Resolution.Unmapped(unnamed.reason());
      case CertificateIdentity.Named named -> {
        // Looked up at every request, in the set in force: a revocation committed to this node
        // refuses the certificate's next request, as it does the token's secret.
        ApiToken token = tokens.current().named(named.tokenName()).orElse(null);
        yield token == null
            ? new Resolution.Unmapped("the client certificate (" + named.subject() + ") names token " + named.tokenName()
                + ", which this node does not know (never added, or revoked)")
            : new Resolution.Known(token.principal());
      }
    };
  }

  /** Resolves the values of the request's {@code Authorization} headers (usually none or one). */
  public Resolution resolve(List<String> authorization) {
    if (authorization.isEmpty()) return new Resolution.Missing();
    if (authorization.size() > 1) return new Resolution.Unknown("the request has more than one Authorization header");
    String value = authorization.getFirst().strip();
    int space = value.indexOf(' ');
    if (space < 0 || !value.substring(0, space).toLowerCase(Locale.ROOT).equals(SCHEME)) {
      return new Resolution.Unknown("the Authorization header must be 'Bearer <token>'");
    }
    String secret = value.substring(space + 1).strip();
    if (secret.isEmpty()) return new Resolution.Unknown("the Authorization header has no token after 'Bearer'");
    byte[] hash = TokenSecrets.hash(secret);
    byte[] bootstrap = bootstrapHash;
    if (bootstrap != null && MessageDigest.isEqual(bootstrap, hash)) return new Resolution.Known(new Principal(BOOTSTRAP_NAME, Grant.ALL));
    ApiToken token = tokens.current().find(hash);
    if (token == null) return new Resolution.Unknown("the token is not known to this node (revoked, mistyped, or of another cluster)");
    return new Resolution.Known(token.principal());
  }
}
