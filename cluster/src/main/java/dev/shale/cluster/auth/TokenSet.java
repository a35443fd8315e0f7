package dev.shale.cluster.auth;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The tokens a node or a cluster accepts, sorted by name, and the version of the last change
 * that made them (docs/format.md, "API tokens"). Immutable: a change makes a new set.
 */
public record TokenSet(long version, List<ApiToken> tokens) {
  public static final TokenSet EMPTY = new TokenSet(0, List.of());
  /** Kept small: every request's lookup compares with each one (constant time, {@link #find}). */
  public static final int MAX_TOKENS = 1_000;

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
    switch (change) {
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
    return new TokenSet(version, after);
  }
}
