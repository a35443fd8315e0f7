package dev.shale.app;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The API token a client command sends ({@code Authorization: Bearer}): from {@code --token-file},
 * else from the environment variable {@code SHALE_TOKEN}, else none. A file keeps the secret off
 * the command line, which other users of the machine can see.
 */
final class BearerToken {
  static final String ENV = "SHALE_TOKEN";
  static final String HEADER = "Authorization";

  private BearerToken() {}

  static @Nullable String resolve(@Nullable Path file, Map<String, String> env, Function<String, ? extends RuntimeException> usage) {
    if (file != null) {
      byte[] secret = SecretFile.read(file, "--token-file", usage);
      if (secret.length == 0) throw usage.apply("--token-file " + file + " is empty");
      return new String(secret, StandardCharsets.UTF_8);
    }
    String fromEnv = env.get(ENV);
    return fromEnv == null || fromEnv.isBlank() ? null : fromEnv.strip();
  }

  /** The header's value. */
  static String value(String token) {
    return "Bearer " + token;
  }
}
