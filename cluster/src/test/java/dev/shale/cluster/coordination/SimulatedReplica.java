package dev.shale.cluster.coordination;

import dev.shale.storage.Entry;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One replica's store in the simulation, a tiny engine: the newest record of each key, a write
 * kept only if it is newer ({@link Entry#newer}), whatever order writes arrive in.
 */
final class SimulatedReplica {
  private final Map<ByteBuffer, Entry> records = new HashMap<>();

  /** The newest record of {@code key}: a value, a tombstone, or null when there is none. */
  @Nullable Entry get(byte[] key) {
    return records.get(ByteBuffer.wrap(key));
  }

  void apply(Entry entry) {
    records.merge(ByteBuffer.wrap(entry.key()), entry, Entry::newer);
  }

  /** The version held for {@code key}; -1 when none. */
  long versionOf(byte[] key) {
    Entry entry = get(key);
    return entry == null ? -1 : entry.version();
  }
}
