package dev.shale.server.repair;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.repair.RepairFailedException;
import dev.shale.server.peer.PeerMessage;
import dev.shale.server.scan.RecordFrames;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Keys;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A peer's answer to DIGESTS, read as it comes: the scan stream in its SCAN_DATA frames
 * ({@link RecordFrames}), each record without its value, in strictly increasing key order (the
 * repair's walk relies on it: a key out of order fails the stream). A stream that stops before
 * its end frame is a failure, never a shorter range. Closing it closes the connection.
 *
 * <p>Not thread safe: the repair's thread reads it.
 */
final class PeerDigests implements EntryIterator {
  private final NodeAddress peer;
  private final RepairConnection connection;
  private final RecordFrames.Decoder decoder;
  private @Nullable Entry next;
  private byte @Nullable [] lastKey;
  private boolean ended;

  PeerDigests(NodeAddress peer, RepairConnection connection) {
    this.peer = peer;
    this.connection = connection;
    this.decoder = new RecordFrames.Decoder(peer.toString());
  }

  @Override
  public boolean hasNext() {
    try {
      while (next == null && !ended) {
        Entry decoded = decoder.next();
        if (decoded != null) {
          accept(decoded);
        } else if (decoder.ended()) {
          ended = true;
        } else {
          PeerMessage.Answer answer = connection.next(PeerRepairSide.ANSWER_TIMEOUT_MILLIS);
          if (!(answer instanceof PeerMessage.ScanData data)) throw PeerRepairSide.unexpected(answer, "digests");
          decoder.feed(data.data());
        }
      }
    } catch (RecordFrames.FormatException e) {
      throw new RepairFailedException(String.valueOf(e.getMessage()), e);
    }
    return next != null;
  }

  private void accept(Entry digest) {
    if (lastKey != null && Keys.compare(digest.key(), lastKey) <= 0) {
      throw new RepairFailedException(peer + " sent digest key " + Keys.toDisplay(digest.key()) + " out of order");
    }
    lastKey = digest.key();
    next = digest;
  }

  @Override
  public Entry next() {
    if (!hasNext()) throw new NoSuchElementException();
    Entry digest = Objects.requireNonNull(next);
    next = null;
    return digest;
  }

  @Override
  public void close() {
    ended = true;
    next = null;
    connection.close();
    decoder.release();
  }
}
