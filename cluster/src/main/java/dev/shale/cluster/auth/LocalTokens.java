package dev.shale.cluster.auth;

import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The token set of a node alone: in memory, and in {@code <data>/tokens}, written (durably)
 * before a change is answered. Changes are serialised by this object's lock.
 *
 * <p>Thread safe.
 */
public final class LocalTokens implements Tokens {
  /** The file's name under the data directory. */
  public static final String FILE_NAME = "tokens";

  private final TokenFile file;
  private volatile TokenSet current;

  private LocalTokens(TokenFile file, TokenSet current) {
    this.file = file;
    this.current = current;
  }

  /** The set stored in {@code file}, empty if there is none yet. */
  public static LocalTokens open(TokenFile file) {
    return new LocalTokens(file, file.read().orElse(TokenSet.EMPTY));
  }

  @Override
  public TokenSet current() {
    return current;
  }

  @Override
  public synchronized CompletableFuture<TokenSet> change(TokenChange change) {
    TokenSet after;
    try {
      after = current.apply(change, current.version() + 1);
      file.write(after); // durable before anyone hears it took effect
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    current = after;
    return CompletableFuture.completedFuture(after);
  }

  @Override
  public String toString() {
    @Nullable TokenSet set = current;
    return "LocalTokens[" + file.path() + ", " + set.tokens().size() + " tokens]";
  }
}
