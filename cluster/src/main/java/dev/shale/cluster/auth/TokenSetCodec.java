package dev.shale.cluster.auth;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A {@link TokenSet} as text, and a {@link TokenChange} as one line: the grammar is in
 * docs/format.md, "API tokens". The words and the header are embedded in stored data: do not change.
 */
public final class TokenSetCodec {
  /** The set's first line; a new form is a new header version. */
  public static final String HEADER = "shale-tokens 1";
  static final String ADD = "token-add";
  static final String REVOKE = "token-revoke";
  static final String REQUIRE = "token-require";
  static final String REQUIRED_LINE = "required";
  /** A Raft log entry whose data starts with it is a token change. */
  public static final String CHANGE_PREFIX = "token-";

  private TokenSetCodec() {}

  public static byte[] encode(TokenSet set) {
    StringBuilder text = new StringBuilder(HEADER).append('\n').append("version ").append(set.version()).append('\n');
    if (set.required()) text.append(REQUIRED_LINE).append('\n');
    for (ApiToken token : set.tokens()) text.append("token ").append(tokenWords(token)).append('\n');
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** @throws IllegalArgumentException saying what is malformed */
  public static TokenSet decode(byte[] bytes) {
    String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n");
    if (lines.length < 2 || !lines[0].equals(HEADER)) throw new IllegalArgumentException("not a token set (no '" + HEADER + "' line)");
    if (!lines[1].startsWith("version ")) throw new IllegalArgumentException("the second line is not 'version <n>'");
    long version = Long.parseLong(lines[1].substring("version ".length()));
    List<ApiToken> tokens = new ArrayList<>();
    boolean required = lines.length > 2 && lines[2].equals(REQUIRED_LINE);
    for (int i = required ? 3 : 2; i < lines.length; i++) {
      String[] words = lines[i].split(" ", -1);
      if (!words[0].equals("token")) throw new IllegalArgumentException("line " + (i + 1) + " is not a token");
      tokens.add(token(words, 1));
    }
    return new TokenSet(version, required, tokens);
  }

  public static byte[] encode(TokenChange change) {
    String line = switch (change) {
      case TokenChange.Add add -> ADD + " " + tokenWords(add.token());
      case TokenChange.Revoke revoke -> REVOKE + " " + revoke.name();
      case TokenChange.Require ignored -> REQUIRE;
    };
    return line.getBytes(StandardCharsets.UTF_8);
  }

  /** Whether a Raft log entry's data is a token change (else a topology change). */
  public static boolean isChange(byte[] data) {
    byte[] prefix = CHANGE_PREFIX.getBytes(StandardCharsets.US_ASCII);
    return data.length >= prefix.length && java.util.Arrays.equals(data, 0, prefix.length, prefix, 0, prefix.length);
  }

  /** @throws IllegalArgumentException saying what is malformed */
  public static TokenChange decodeChange(byte[] bytes) {
    String line = new String(bytes, StandardCharsets.UTF_8);
    String[] words = line.split(" ", -1);
    try {
      return switch (words[0]) {
        case ADD -> new TokenChange.Add(token(words, 1));
        case REQUIRE -> {
          if (words.length != 1) throw new IllegalArgumentException("expected 1 word, got " + words.length);
          yield new TokenChange.Require();
        }
        case REVOKE -> {
          if (words.length != 2) throw new IllegalArgumentException("expected 2 words, got " + words.length);
          yield new TokenChange.Revoke(words[1]);
        }
        default -> throw new IllegalArgumentException("unknown token change '" + words[0] + "'");
      };
    } catch (RuntimeException e) {
      // The line holds no secret (only its hash), so it may be quoted.
      throw new IllegalArgumentException("malformed token change '" + line + "': " + e.getMessage(), e);
    }
  }

  private static String tokenWords(ApiToken token) {
    StringBuilder words = new StringBuilder(token.name()).append(' ').append(TokenSecrets.hex(token.hashUnsafe()))
        .append(' ').append(Scope.words(token.scopes())).append(' ').append(token.createdMillis());
    for (byte[] prefix : token.grant().prefixes()) words.append(' ').append(HexFormat.of().formatHex(prefix));
    return words.toString();
  }

  private static ApiToken token(String[] words, int at) {
    if (words.length < at + 4) throw new IllegalArgumentException("a token is <name> <hash> <scopes> <created> [<prefix>...]");
    List<byte[]> prefixes = new ArrayList<>();
    for (int i = at + 4; i < words.length; i++) {
      String hex = words[i];
      if (hex.isEmpty() || hex.length() % 2 != 0 || !hex.equals(hex.toLowerCase(java.util.Locale.ROOT))) {
        throw new IllegalArgumentException("a prefix is an even number of lower-case hex digits: '" + hex + "'");
      }
      prefixes.add(HexFormat.of().parseHex(hex));
    }
    return new ApiToken(words[at], TokenSecrets.parseHash(words[at + 1]), new Grant(Scope.parse(words[at + 2]), prefixes),
        Long.parseLong(words[at + 3]));
  }
}
