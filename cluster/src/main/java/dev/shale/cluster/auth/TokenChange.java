package dev.shale.cluster.auth;

/** A change of the token set, agreed and applied in order on every node that keeps it. */
public sealed interface TokenChange {
  record Add(ApiToken token) implements TokenChange {}

  record Revoke(String name) implements TokenChange {
    public Revoke {
      ApiToken.checkName(name);
    }
  }
}
