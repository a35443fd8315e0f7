package dev.shale.server.scan;

import dev.shale.cluster.NodeAddress;
import dev.shale.server.Reasons;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import java.util.ArrayDeque;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One node's records of a cluster scan's range, as the coordinator receives them: opened, then
 * records in key order into a small buffer, then ended; or failed at any point. The coordinator
 * takes records from the buffer and asks for more ({@link #demand}) when it runs dry; a stream
 * reads ahead only a bounded amount, so memory per stream is bounded whatever the range.
 *
 * <p>Confined to the event loop of the client's connection, which every stream of a scan shares.
 */
abstract class NodeStream {
  /** What the coordinator hears from its streams. */
  interface Listener {
    void opened(NodeStream stream);

    /** The stream failed; {@code reason} is one line naming the node. */
    void failed(NodeStream stream, String reason);

    /** Records arrived, or the stream ended. */
    void readable(NodeStream stream);
  }

  enum State { NEW, OPENING, OPEN, FAILED, CLOSED }

  private final NodeAddress node;
  private final ScanRange range;
  private final ArrayDeque<Entry> buffered = new ArrayDeque<>();
  private long bufferedBytes;
  private byte @Nullable [] lastKey;
  private boolean ended;
  private State state = State.NEW;
  private @Nullable Listener listener; // set by open(), which comes first
  // The coordinator's bookkeeping: waiting for records (in no heap), or taken for the current key.
  boolean starving;
  @Nullable Entry taken;

  NodeStream(NodeAddress node, ScanRange range) {
    this.node = node;
    this.range = range;
  }

  /** The range a stream covers, for the order check on what a node sends. */
  interface ScanRange {
    boolean contains(byte[] key);
  }

  final NodeAddress node() {
    return node;
  }

  final State state() {
    return state;
  }

  final Listener listener() {
    return Objects.requireNonNull(listener, "open() comes first");
  }

  final void open(Listener listener) {
    this.listener = listener;
    state = State.OPENING;
    begin();
  }

  /** Starts the stream; reports {@link #opened} or {@link #fail}. */
  abstract void begin();

  /** Asks for more records; they come through {@link Listener#readable}. */
  abstract void demand();

  /** Lets go of the connection or iterator; nothing is reported afterwards. */
  abstract void release();

  /** The merge waits for its client: a stream may let go of what it can take again (its engine iterator). */
  void park() {}

  final Entry peek() {
    return buffered.peekFirst();
  }

  final Entry poll() {
    Entry entry = buffered.pollFirst();
    if (entry != null) bufferedBytes -= size(entry);
    return entry;
  }

  final boolean isEmpty() {
    return buffered.isEmpty();
  }

  final long bufferedBytes() {
    return bufferedBytes;
  }

  /** The node sent its end: what is buffered is all that remains. */
  final boolean ended() {
    return ended;
  }

  final boolean isOpen() {
    return state == State.OPEN;
  }

  final void opened() {
    if (state != State.OPENING) return;
    state = State.OPEN;
    listener().opened(this);
  }

  /** Buffers {@code entry}; false (and the stream failed) if it breaks the key order or the range. */
  final boolean accept(Entry entry) {
    if (state != State.OPEN) return false;
    if (!range.contains(entry.key()) || (lastKey != null && Keys.compare(entry.key(), lastKey) <= 0)) {
      fail(node + " sent key " + Keys.toDisplay(entry.key()) + " out of order or outside the range");
      return false;
    }
    lastKey = entry.key();
    buffered.addLast(entry);
    bufferedBytes += size(entry);
    return true;
  }

  final void end() {
    if (state == State.OPEN) ended = true;
  }

  final void fail(String reason) {
    if (state == State.FAILED || state == State.CLOSED) return;
    state = State.FAILED;
    release();
    listener().failed(this, Reasons.oneLine(reason));
  }

  final void close() {
    if (state == State.CLOSED) return;
    boolean releaseNeeded = state != State.FAILED;
    state = State.CLOSED;
    if (releaseNeeded) release();
    buffered.clear();
    bufferedBytes = 0;
  }

  final boolean isClosed() {
    return state == State.CLOSED || state == State.FAILED;
  }

  private static long size(Entry entry) {
    return entry.key().length + (entry.value() == null ? 0 : entry.value().length) + 32L;
  }
}
