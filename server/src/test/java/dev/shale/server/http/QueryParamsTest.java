package dev.shale.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.server.EntityService;
import dev.shale.testkit.TestSeed;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** ack/from in the query, and keys encoded for a replica and decoded back byte for byte. */
class QueryParamsTest {
  @Test
  void findsAParameterAndDecodesIt() throws Exception {
    assertThat(QueryParams.value("id=k&ack=2&from=3", "ack")).isEqualTo("2");
    assertThat(QueryParams.value("id=k&from=%33", "from")).isEqualTo("3");
    assertThat(QueryParams.value("id=k&acks=2", "ack")).isNull();
    assertThat(QueryParams.value("id=k&ack", "ack")).isEmpty();
    assertThat(QueryParams.value(null, "ack")).isNull();
    assertThatThrownBy(() -> QueryParams.value("ack=1&ack=2", "ack"))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("ack is given more than once");
  }

  @Test
  void aKeyEncodedForAReplicaDecodesToTheSameBytes() throws Exception {
    Random random = new Random(TestSeed.forTest("QueryParamsTest.roundTrip"));
    String[] ids = {"a", "a b&c=d", "+%/?#", "ключ", "😀", "k".repeat(1024)};
    for (String id : ids) assertRoundTrip(id.getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < 1000; i++) {
      int[] codePoints = random.ints(1 + random.nextInt(20), 1, 0x2FFFF)
          .filter(c -> c < 0xD800 || c > 0xDFFF).toArray();
      if (codePoints.length == 0) continue; // every one was a surrogate: no key
      assertRoundTrip(new String(codePoints, 0, codePoints.length).getBytes(StandardCharsets.UTF_8));
    }
  }

  private static void assertRoundTrip(byte[] key) throws InvalidRequestException {
    RequestTarget target = RequestTarget.parse(QueryParams.entityTarget(key));
    assertThat(target.path()).isEqualTo(EntityHttpHandler.ENTITY_PATH);
    assertThat(EntityService.keyOf(target.query())).isEqualTo(key);
  }
}
