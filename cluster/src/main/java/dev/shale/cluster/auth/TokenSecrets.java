package dev.shale.cluster.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Making and hashing token secrets (docs/format.md, "API tokens"): {@code shale_} and the
 * base64url of 32 random bytes. The prefix lets secret scanners and people recognise a leaked one.
 */
public final class TokenSecrets {
  /** Every secret starts with it. */
  public static final String PREFIX = "shale_";
  static final int RANDOM_BYTES = 32;
  static final int HASH_BYTES = 32;

  private TokenSecrets() {}

  /** A new secret from {@code random} (a {@link SecureRandom} outside tests). */
  public static String newSecret(SecureRandom random) {
    byte[] bytes = new byte[RANDOM_BYTES];
    random.nextBytes(bytes);
    return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The SHA-256 of the secret's UTF-8 bytes: all a node keeps. */
  public static byte[] hash(String secret) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  static String hex(byte[] hash) {
    return HexFormat.of().formatHex(hash);
  }

  /** @throws IllegalArgumentException unless 64 lower-case hex digits */
  static byte[] parseHash(String hex) {
    if (hex.length() != HASH_BYTES * 2 || !hex.equals(hex.toLowerCase(java.util.Locale.ROOT))) {
      throw new IllegalArgumentException("a token hash is 64 lower-case hex digits");
    }
    return HexFormat.of().parseHex(hex);
  }
}
