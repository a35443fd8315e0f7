package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.core.EngineTesting.Model;
import java.util.List;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.TreeSet;

/**
 * After a power loss: which prefix of the writes since the last one a recovered store holds. The
 * log is durable as a prefix (docs/design.md, "Durability modes"), and so is each flush, so a
 * correct store equals the model after the writes before the store's life began and the first k
 * of its life's writes, for some k between the writes it must keep (every acknowledged one in
 * SyncMode.ALWAYS; those a log sync covered in INTERVAL: {@code DurableWrites}) and all of them.
 */
final class SurvivingPrefix {
  private SurvivingPrefix() {}

  /**
   * The smallest such k, or -1 if the store equals the model after no such prefix.
   *
   * @param before the writes that made the store as its life began (durable by then)
   * @param life the writes acknowledged since, in order
   * @param recovered the recovered store, every record as read at {@code nowMillis}
   */
  static int of(List<Entry> before, List<Entry> life, int mustKeep, NavigableMap<byte[], Entry> recovered, long nowMillis) {
    Model model = new Model();
    before.forEach(model::apply);
    for (int i = 0; i < mustKeep; i++) model.apply(life.get(i));
    // Invariant: differing holds exactly the keys whose record in the model (at prefix k) is
    // not the recovered one.
    NavigableSet<byte[]> differing = new TreeSet<>(Keys.ORDER);
    NavigableSet<byte[]> keys = new TreeSet<>(Keys.ORDER);
    keys.addAll(recovered.keySet());
    model.scan(new byte[0], null, true).forEach(e -> keys.add(e.key()));
    for (byte[] key : keys) {
      if (!agrees(model, recovered, key, nowMillis)) differing.add(key);
    }
    for (int k = mustKeep; ; k++) {
      if (differing.isEmpty()) return k;
      if (k == life.size()) return -1;
      byte[] key = life.get(k).key();
      model.apply(life.get(k));
      if (agrees(model, recovered, key, nowMillis)) differing.remove(key);
      else differing.add(key);
    }
  }

  private static boolean agrees(Model model, NavigableMap<byte[], Entry> recovered, byte[] key, long nowMillis) {
    Entry expected = model.get(key);
    return Objects.equals(expected == null ? null : expected.readAt(nowMillis), recovered.get(key));
  }
}
