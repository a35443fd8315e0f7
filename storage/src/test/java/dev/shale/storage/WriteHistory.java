package dev.shale.storage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The oracle of the fault tests: the store's content when the history began, and every write
 * attempted since, in order (one writer thread). A store after a fault must hold the state after
 * some prefix of the writes: at least those it must keep (the acknowledged ones, or those a sync
 * covered), at most every one attempted (one that failed may still have reached the disk).
 * Other stores built on the engine (the hint store) use it too, through storage's test-jar.
 */
public final class WriteHistory {
  private record Write(String key, String value) {} // value null: a delete

  private Map<String, String> base = new TreeMap<>();
  private final List<Write> writes = new ArrayList<>();

  /** Records a write about to be attempted; returns its number (the count before it). */
  public int attempt(String key, String value) {
    writes.add(new Write(key, value));
    return writes.size() - 1;
  }

  /** Writes attempted since the last {@link #rebase}. */
  public int attempted() {
    return writes.size();
  }

  /** The value after every attempted write, as the model of a store that lost nothing. */
  public String latest(String key) {
    for (int i = writes.size() - 1; i >= 0; i--) {
      if (writes.get(i).key().equals(key)) return writes.get(i).value();
    }
    return base.get(key);
  }

  /**
   * The length k, {@code atLeast <= k <= attempted()}, of the first prefix of writes after which
   * the model equals {@code recovered}, or -1 if none does.
   */
  public int consistentPrefix(Map<String, String> recovered, int atLeast) {
    Map<String, String> state = new HashMap<>(base);
    for (int i = 0; i < atLeast; i++) apply(state, writes.get(i));
    Set<String> differing = new HashSet<>();
    Set<String> keys = new HashSet<>(recovered.keySet());
    keys.addAll(state.keySet());
    for (String key : keys) {
      if (!Objects.equals(state.get(key), recovered.get(key))) differing.add(key);
    }
    for (int k = atLeast; ; k++) {
      if (differing.isEmpty()) return k;
      if (k == writes.size()) return -1;
      Write w = writes.get(k);
      apply(state, w);
      if (Objects.equals(state.get(w.key()), recovered.get(w.key()))) differing.remove(w.key());
      else differing.add(w.key());
    }
  }

  /** Starts a new history from {@code state}: what a store held when it was checked. */
  public void rebase(Map<String, String> state) {
    base = new TreeMap<>(state);
    writes.clear();
  }

  /** Every live key and value of {@code engine}, read with one scan. */
  public static Map<String, String> contents(Engine engine) {
    Map<String, String> contents = new TreeMap<>();
    try (EntryIterator entries = engine.scan(new byte[] {0}, null, false)) {
      while (entries.hasNext()) {
        Entry e = entries.next();
        contents.put(string(e.key()), string(e.value()));
      }
    }
    return contents;
  }

  public static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  public static String string(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static void apply(Map<String, String> state, Write w) {
    if (w.value() == null) state.remove(w.key());
    else state.put(w.key(), w.value());
  }
}
