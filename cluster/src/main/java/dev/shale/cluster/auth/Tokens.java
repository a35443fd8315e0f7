package dev.shale.cluster.auth;

import java.util.concurrent.CompletableFuture;

/**
 * Where a node's token set is kept and changed: a file on a node alone ({@link LocalTokens}), the
 * cluster map's Raft group on a cluster member (so every member applies every change in order).
 *
 * <p>Thread safe. {@link #current} never blocks (it is read on every request).
 */
public interface Tokens {
  /** The set as this node has it now. */
  TokenSet current();

  /**
   * Applies {@code change}: completes with the set it made once this node has it, or
   * exceptionally with {@link TokenChangeRefused} (or why it could not be agreed).
   */
  CompletableFuture<TokenSet> change(TokenChange change);
}
