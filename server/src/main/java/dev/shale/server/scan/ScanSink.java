package dev.shale.server.scan;

import dev.shale.storage.Entry;
import java.util.List;

/**
 * Where {@link EngineScan} writes a node's records of a range: a client's chunked HTTP body
 * ({@link EngineScanAnswer}) or the SCAN_DATA frames of a peer's scan ({@link PeerScanAnswer}).
 *
 * <p>Called on the channel's event loop only. After {@link #end}, {@link #busy} or {@link #fail}
 * nothing is called again, and the scan holds nothing any more (its iterator and its place in
 * {@link ScanThreads} are given back before).
 */
interface ScanSink {
  /** Writes {@code records} (maybe none), not flushed; {@code first}: nothing of the scan was written before. */
  void write(List<Entry> records, boolean first);

  /** The range is exhausted: writes what closes the stream, and flushes. */
  void end();

  /** The node serves its most scans already: this one is refused before any byte of it. */
  void busy(String reason);

  /**
   * The engine failed; {@code began}: records went out already, so the stream must end as cut,
   * never as complete.
   */
  void fail(String reason, boolean began);
}
