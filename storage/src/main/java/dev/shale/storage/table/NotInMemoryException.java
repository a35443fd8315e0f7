package dev.shale.storage.table;

/**
 * A read asked to take nothing from the disk ({@link Table#find(byte[],
 * dev.shale.storage.util.Murmur3.Hash128, boolean)}) needs a block the page cache does not hold.
 * Not a failure: the caller reads again where it may wait. One shared instance, without a stack
 * trace: it is thrown on a hot path, as often as reads miss the cache.
 */
public final class NotInMemoryException extends RuntimeException {
  static final NotInMemoryException INSTANCE = new NotInMemoryException();

  private NotInMemoryException() {
    super("the read needs a block that is not in memory", null, false, false);
  }
}
