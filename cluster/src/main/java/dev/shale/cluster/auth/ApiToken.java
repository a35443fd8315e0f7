package dev.shale.cluster.auth;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A stored token: its name, the SHA-256 of its secret (never the secret), its grant, and when it
 * was added. Immutable; the hash is copied in and out.
 */
public record ApiToken(String name, byte[] secretHash, Grant grant, long createdMillis) {
  /** Names are one word in the stored set and safe in a URL and a log line. */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  static final int MAX_PREFIXES = 16;
  static final int MAX_PREFIX_BYTES = 1024;

  /** @throws IllegalArgumentException saying what is wrong with a name, a hash or a prefix */
  public ApiToken {
    checkName(name);
    if (secretHash.length != TokenSecrets.HASH_BYTES) throw new IllegalArgumentException("a token hash is 32 bytes");
    secretHash = secretHash.clone();
    if (grant.scopes().isEmpty()) throw new IllegalArgumentException("a token needs at least one scope");
    List<byte[]> prefixes = grant.prefixes();
    if (prefixes.size() > MAX_PREFIXES) throw new IllegalArgumentException("a token takes at most " + MAX_PREFIXES + " prefixes");
    for (byte[] prefix : prefixes) {
      if (prefix.length == 0 || prefix.length > MAX_PREFIX_BYTES) {
        throw new IllegalArgumentException("a prefix is 1 to " + MAX_PREFIX_BYTES + " bytes");
      }
    }
  }

  public static void checkName(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("a token name is 1 to 64 letters, digits, '.', '_' or '-'");
    }
  }

  @Override
  public byte[] secretHash() {
    return secretHash.clone();
  }

  byte[] hashUnsafe() {
    return secretHash;
  }

  public Set<Scope> scopes() {
    return grant.scopes();
  }

  public Principal principal() {
    return new Principal(name, grant);
  }
}
