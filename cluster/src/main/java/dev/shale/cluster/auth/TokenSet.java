package dev.shale.cluster.auth;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The tokens a node or a cluster accepts, sorted by name, the version of the last change that
 * made them, and whether the cluster requires tokens of every client (docs/format.md, "API
 * tokens"): set by the first member started with {@code --auth tokens}, so that every member
 * enforces them, whatever its own option. Immutable: a change makes a new set.
 */
public record TokenSet(long version, boolean required, List<ApiToken> tokens) {
  public static final TokenSet EMPTY = new TokenSet(0, false, List.of());
  /** Kept small: every request's lookup compares with each one (constant time, {@link #find}). */
  public static final int MAX_TOKENS = 1_000;

  /** A set that does not require tokens. */
  public TokenSet(long version, List<ApiToken> tokens) {
    this(version, false, tokens);
  }

  public TokenSet {
    tokens = tokens.stream().sorted(Comparator.comparing(ApiToken::name)).toList();
    for (int i = 1; i < tokens.size(); i++) {
      if (tokens.get(i).name().equals(tokens.get(i - 1).name())) {
        throw new IllegalArgumentException("two tokens named " + tokens.get(i).name());
      }
    }
  }

  public Optional<ApiToken> named(String name) {
    return tokens.stream().filter(t -> t.name().equals(name)).findFirst();
  }

  /**
   * The token whose secret hashes to {@code hash}, or null. Compares with every token, each in
   * constant time ({@link MessageDigest#isEqual}), so how long it takes says nothing of how close
   * a guess came.
   */
  public @Nullable ApiToken find(byte[] hash) {
    ApiToken found = null;
    for (ApiToken token : tokens) {
      if (MessageDigest.isEqual(token.hashUnsafe(), hash)) found = token;
    }
    return found;
  }

  /**
   * The set after {@code change}, at {@code version}.
   *
   * @throws TokenChangeRefused for a name taken, a secret already in use, no such token, or a full set
   */
  public TokenSet apply(TokenChange change, long version) {
    List<ApiToken> after = new ArrayList<>(tokens);
    boolean requiredAfter = required;
    switch (change) {
      case TokenChange.Require ignored -> {
        if (required) throw new TokenChangeRefused("the cluster requires tokens already");
        requiredAfter = true;
      }
      case TokenChange.Add add -> {
        ApiToken token = add.token();
        if (named(token.name()).isPresent()) throw new TokenChangeRefused("a token named " + token.name() + " exists already");
        if (find(token.hashUnsafe()) != null) throw new TokenChangeRefused("another token has the same secret");
        if (tokens.size() >= MAX_TOKENS) throw new TokenChangeRefused("the set holds " + MAX_TOKENS + " tokens, the most it takes");
        after.add(token);
      }
      case TokenChange.Revoke revoke -> {
        if (!after.removeIf(t -> t.name().equals(revoke.name()))) throw new TokenChangeRefused("no token named " + revoke.name());
      }
    }
    return new TokenSet(version, requiredAfter, after);
  }
}
