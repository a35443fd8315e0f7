package dev.shale.storage.memtable;

import dev.shale.storage.io.SegmentBytes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * A skip list of distinct keys in a {@link MemtableArena}, each node carrying one {@code long}
 * payload that may be replaced (the memtable's record reference). Nodes are never removed.
 *
 * <p>Thread safety: one writer at a time ({@link #prepareInsert}, {@link #insertPrepared},
 * {@link #setPayload}); any number of readers at once, without locks, concurrently with the
 * writer (LevelDB's SkipList contract).
 */
final class ArenaSkipList {
  /*
   * Node layout (native byte order, 8-byte aligned; nothing of it is persisted). As in RocksDB's
   * InlineSkipList, the links come before the node and the key right after it, so that a search
   * finds both at fixed offsets from the node's reference without reading its height:
   *
   *   -8*(level+1)  next[level], level < height: the following node at that level, NULL at the end
   *   +0            payload      long, read with acquire, replaced with release
   *   +8            keyLength    int
   *   +12           height       int, 1..MAX_HEIGHT
   *   +16           the key's bytes
   *
   * A node's reference is its block's plus 8 * height, so never NULL (0).
   *
   * Publication (LevelDB's SkipList::Insert). The writer fills a new node completely with plain
   * writes, then links it bottom level first, each link a release store; a reader follows links
   * with acquire loads. So a reader that reaches a node sees its key, height, payload and its own
   * next pointers as the writer set them before linking. A reader may see a node at level 0 and
   * not yet above: it is then found by a slower path, never missed. A payload replaced later is
   * published the same way.
   *
   * Heights. Each level holds about a quarter of the nodes of the one below (branching 4, as
   * LevelDB and RocksDB), so a search visits about 4 * log4(n) nodes; MAX_HEIGHT 12 serves 16M
   * keys at that cost. The generator is the writer's own (single writer, no contention), seeded
   * with a constant so that a list's shape depends only on its inserts.
   */

  static final int MAX_HEIGHT = 12;
  private static final int PAYLOAD = 0;
  private static final int KEY_LENGTH = 8;
  private static final int HEIGHT = 12;
  private static final int KEY = 16;
  private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

  private final MemtableArena arena;
  private final long head;
  private volatile int height = 1; // the tallest node's height; a reader may see it late, harmlessly
  // Writer only: splice[level] is a node linked at that level (or head), or NULL before the first
  // use; after prepareInsert, the predecessors of its key at every level below pendingHeight.
  private final long[] splice = new long[MAX_HEIGHT];
  private int pendingHeight; // writer only: the height prepareInsert drew for insertPrepared
  private long random = 0x5DEECE66DL; // writer only: xorshift state

  ArenaSkipList(MemtableArena arena) {
    this.arena = arena;
    this.head = newNode(new byte[0], MAX_HEIGHT, MemtableArena.NULL);
  }

  /** The first node whose key is >= {@code key}, or NULL. */
  long seek(byte[] key) {
    return findGreaterOrEqual(key, null);
  }

  /** The node of exactly {@code key}, or NULL. */
  long find(byte[] key) {
    long node = findGreaterOrEqual(key, null);
    return node != MemtableArena.NULL && compareKey(node, key) == 0 ? node : MemtableArena.NULL;
  }

  /** The first node, or NULL when the list is empty. */
  long first() {
    return next(head, 0);
  }

  /** The node after {@code node}, or NULL. */
  long next(long node) {
    return next(node, 0);
  }

  /**
   * Writer only. The node of {@code key}, or NULL after noting where a node of it would be linked
   * in: then {@link #insertPrepared} may follow, before any other write.
   */
  long prepareInsert(byte[] key) {
    pendingHeight = randomHeight();
    long found = spliceBrackets(key, pendingHeight)
        ? next(splice[0], 0) // the key's successor at level 0, or the key's own node
        : findGreaterOrEqual(key, splice);
    return found != MemtableArena.NULL && compareKey(found, key) == 0 ? found : MemtableArena.NULL;
  }

  /*
   * Splice reuse (RocksDB's InlineSkipList). After an insert the splice holds the new node at
   * each of its levels: for keys that arrive in ascending order (a sequential fill, time-ordered
   * keys) it still brackets the next key, at every level the next node needs, and the search from
   * the top is skipped. Checked exactly, level by level, so a stale splice only costs the check:
   * for random keys, a compare with the last node inserted (in cache) and often one more.
   */
  private boolean spliceBrackets(byte[] key, int levels) {
    for (int level = 0; level < levels; level++) {
      long before = splice[level];
      if (before == MemtableArena.NULL) return false;
      if (before != head && compareKey(before, key) >= 0) return false;
      long after = next(before, level);
      if (after != MemtableArena.NULL && compareKey(after, key) < 0) return false;
    }
    return true;
  }

  /**
   * Writer only, right after {@link #prepareInsert}({@code key}) returned NULL: links in a new
   * node of {@code key} carrying {@code payload}, and returns it.
   */
  long insertPrepared(byte[] key, long payload) {
    int nodeHeight = pendingHeight;
    int listHeight = height;
    if (nodeHeight > listHeight) {
      for (int level = listHeight; level < nodeHeight; level++) splice[level] = head;
      // A reader seeing the new height before the node is linked finds head's NULL at those
      // levels and drops down: no harm.
      height = nodeHeight;
    }
    long node = newNode(key, nodeHeight, payload);
    for (int level = 0; level < nodeHeight; level++) {
      setNextPlain(node, level, next(splice[level], level)); // the node is not reachable yet
      setNextRelease(splice[level], level, node);
      splice[level] = node; // the predecessor of the keys that follow it
    }
    return node;
  }

  long payload(long node) {
    return (long) LONG.getAcquire(arena.segment(node), MemtableArena.offset(node) + PAYLOAD);
  }

  /** Writer only: replaces the payload; readers see the new one or the old, whole. */
  void setPayload(long node, long payload) {
    LONG.setRelease(arena.segment(node), MemtableArena.offset(node) + PAYLOAD, payload);
  }

  /** A copy of the node's key. */
  byte[] key(long node) {
    MemorySegment segment = arena.segment(node);
    long offset = MemtableArena.offset(node);
    return SegmentBytes.copyOf(segment, offset + KEY, keyLength(segment, offset));
  }

  /** The node's key compared with {@code key}, as {@link java.util.Arrays#compareUnsigned}. */
  int compareKey(long node, byte[] key) {
    MemorySegment segment = arena.segment(node);
    long offset = MemtableArena.offset(node);
    return ArenaBytes.compare(segment, offset + KEY, keyLength(segment, offset), key);
  }

  /** Native bytes a node of {@code keyLength} and {@code height} takes. */
  static long nodeBytes(int keyLength, int height) {
    return (long) Long.BYTES * height + KEY + keyLength;
  }

  // Descends from the top level; at each level records the last node before key in prev (when
  // given) and returns the first node at level 0 that is >= key.
  private long findGreaterOrEqual(byte[] key, long @Nullable [] prev) {
    long node = head;
    int level = height - 1;
    while (true) {
      long next = next(node, level);
      if (next != MemtableArena.NULL && compareKey(next, key) < 0) {
        node = next;
      } else {
        if (prev != null) prev[level] = node;
        if (level == 0) return next;
        level--;
      }
    }
  }

  private long newNode(byte[] key, int nodeHeight, long payload) {
    // The links first: the node's reference is past them, inside the same chunk.
    long node = arena.allocate(nodeBytes(key.length, nodeHeight)) + (long) Long.BYTES * nodeHeight;
    MemorySegment segment = arena.segment(node);
    long offset = MemtableArena.offset(node);
    segment.set(ValueLayout.JAVA_LONG, offset + PAYLOAD, payload);
    segment.set(ValueLayout.JAVA_INT, offset + KEY_LENGTH, key.length);
    segment.set(ValueLayout.JAVA_INT, offset + HEIGHT, nodeHeight);
    ArenaBytes.write(key, segment, offset + KEY);
    return node; // links: zero (NULL) as allocated, set by insertPrepared
  }

  private long next(long node, int level) {
    return (long) LONG.getAcquire(arena.segment(node), nextOffset(node, level));
  }

  private void setNextPlain(long node, int level, long next) {
    LONG.set(arena.segment(node), nextOffset(node, level), next);
  }

  private void setNextRelease(long node, int level, long next) {
    LONG.setRelease(arena.segment(node), nextOffset(node, level), next);
  }

  private static long nextOffset(long node, int level) {
    return MemtableArena.offset(node) - (long) Long.BYTES * (level + 1);
  }

  private static int keyLength(MemorySegment segment, long offset) {
    return segment.get(ValueLayout.JAVA_INT, offset + KEY_LENGTH);
  }

  private int randomHeight() {
    long x = random; // xorshift64
    x ^= x << 13;
    x ^= x >>> 7;
    x ^= x << 17;
    random = x;
    // Two bits per level: a quarter of the nodes reach each next level.
    int nodeHeight = 1;
    while (nodeHeight < MAX_HEIGHT && (x & 3) == 0) {
      nodeHeight++;
      x >>>= 2;
    }
    return nodeHeight;
  }
}
