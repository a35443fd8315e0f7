package dev.shale.cluster.auth;

/** A token change the set does not take (a name taken, no such token); every node refuses it alike. */
public final class TokenChangeRefused extends RuntimeException {
  public TokenChangeRefused(String reason) {
    super(reason);
  }
}
