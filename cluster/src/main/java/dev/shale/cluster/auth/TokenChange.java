package dev.shale.cluster.auth;

/** A change of the token set, agreed and applied in order on every node that keeps it. */
public sealed interface TokenChange {
  record Add(ApiToken token) implements TokenChange {}

  /** From now on every member requires tokens (a member was started with {@code --auth tokens}). */
  record Require() implements TokenChange {}

  record Revoke(String name) implements TokenChange {
    public Revoke {
      ApiToken.checkName(name);
    }
  }
}
