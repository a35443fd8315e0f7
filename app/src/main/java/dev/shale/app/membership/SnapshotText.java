package dev.shale.app.membership;

import dev.shale.cluster.auth.TokenSet;
import dev.shale.cluster.auth.TokenSetCodec;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.ClusterMapCodec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The cluster map state machine's snapshot: the map's text, then the token set's once a token
 * change was applied (docs/format.md, "API tokens"). A snapshot written before tokens existed
 * is the map alone, and reads as an empty set.
 */
final class SnapshotText {
  private static final byte[] TOKENS_START = ("\n" + TokenSetCodec.HEADER + "\n").getBytes(StandardCharsets.UTF_8);

  private SnapshotText() {}

  record Decoded(ClusterMap map, TokenSet tokens) {}

  static byte[] encode(ClusterMap map, TokenSet tokens) {
    byte[] mapText = ClusterMapCodec.encode(map);
    if (tokens.version() == 0) return mapText;
    byte[] tokenText = TokenSetCodec.encode(tokens);
    byte[] both = Arrays.copyOf(mapText, mapText.length + tokenText.length);
    System.arraycopy(tokenText, 0, both, mapText.length, tokenText.length);
    return both;
  }

  /** @throws IllegalArgumentException saying what is malformed */
  static Decoded decode(byte[] bytes) {
    int at = indexOf(bytes, TOKENS_START);
    if (at < 0) return new Decoded(ClusterMapCodec.decode(bytes), TokenSet.EMPTY);
    int tokensFrom = at + 1; // the map's last line keeps its newline
    return new Decoded(ClusterMapCodec.decode(Arrays.copyOf(bytes, tokensFrom)),
        TokenSetCodec.decode(Arrays.copyOfRange(bytes, tokensFrom, bytes.length)));
  }

  private static int indexOf(byte[] bytes, byte[] part) {
    outer:
    for (int i = 0; i + part.length <= bytes.length; i++) {
      for (int j = 0; j < part.length; j++) if (bytes[i + j] != part[j]) continue outer;
      return i;
    }
    return -1;
  }
}
