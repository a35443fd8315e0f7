package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.SignedContent;
import dev.shale.storage.Versions;
import dev.shale.testkit.EntityClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a node of a real cluster does with replica writes that an attacker who captured one, or
 * who holds the secret, sends it. The test holds the cluster secret and signs a replica write in
 * the receiving node's own name (as a tool does); a request captured between peers differs only
 * in the sender it names.
 */
class InternalRequestForgeryTest {
  private static final String ID = "forged";
  private static final String TARGET = "/v0/entity?id=" + ID;

  @Test
  void aSignedReplicaWriteIsTakenOnceByItsNodeOnlyAndOnlyAsSigned(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 3, List.of()).startAll()) {
      String version = Long.toString(Versions.of(System.currentTimeMillis(), 1));
      byte[] value = bytes("as signed");
      SignedContent write = SignedContent.of("PUT", TARGET, version, value);
      String signature = cluster.sign(1, write);

      assertThat(cluster.sendInternal(1, write, value, signature).status()).as("the write as signed").isEqualTo(201);
      assertRefused(cluster.sendInternal(1, write, value, signature), "a replayed request");
      assertRefused(cluster.sendInternal(2, write, value, signature), "not to this node");

      String fresh = cluster.sign(1, write);
      byte[] otherValue = bytes("as altered");
      assertRefused(cluster.sendInternal(1, SignedContent.of("PUT", TARGET, version, otherValue), otherValue, fresh),
          "signature does not match");
      String laterVersion = Long.toString(Long.parseLong(version) + 1);
      assertRefused(cluster.sendInternal(1, SignedContent.of("PUT", TARGET, laterVersion, value), value, fresh),
          "signature does not match");
      assertRefused(cluster.sendInternal(1, SignedContent.of("DELETE", TARGET, version, new byte[0]), new byte[0], fresh),
          "signature does not match");

      assertThat(cluster.readAlone(1, ID).text()).isEqualTo("as signed");
      assertThat(cluster.readAlone(2, ID).status()).as("nothing reached node 2").isEqualTo(404);
    }
  }

  @Test
  void aSignedWriteAtTheHighestVersionIsRefusedAndTheKeyStaysWritable(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 3, List.of()).startAll()) {
      int replica = cluster.replicasOf(ID, 2).getFirst();
      for (long version : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 50}) {
        SignedContent write = SignedContent.of("PUT", TARGET, Long.toString(version), bytes("poison"));
        EntityClient.Reply refused = cluster.sendInternal(replica, write, bytes("poison"), cluster.sign(replica, write));
        assertThat(refused.status()).as("version %d: %s", version, refused.text()).isEqualTo(400);
        assertThat(refused.text()).contains("ms ahead of this node's clock");
      }
      EntityClient client = cluster.client(replica).consistency(2, 2);
      assertThat(client.put(ID, bytes("later")).status()).isEqualTo(201);
      assertThat(client.get(ID).text()).isEqualTo("later");
      assertThat(cluster.readAlone(replica, ID).text()).isEqualTo("later");
      assertThat(client.delete(ID).status()).isEqualTo(202);
      assertThat(client.get(ID).status()).isEqualTo(404);
    }
  }

  private static void assertRefused(EntityClient.Reply reply, String reason) {
    assertThat(reply.status()).as(reply.text()).isEqualTo(403);
    assertThat(reply.text()).contains(reason);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
