package dev.shale.server;

/**
 * How the node's reads fared when tried from memory on an event loop
 * ({@link EntityService#getFromMemory}): for {@code /metrics}, where an operator sees what share of
 * reads spared the storage workers and the disk. Counts since the node started.
 */
public interface MemoryReads {
  /** Reads tried from memory (clients' GETs, a coordinator's own replica reads, peers' replica reads). */
  long tries();

  /** Of {@link #tries}, those memory answered; the others went on to a storage worker. */
  long answered();

  /** The weighted share of the last ~32 tries that were answered, 0 to 1: below 1/4 most reads skip the try. */
  double recentShare();
}
