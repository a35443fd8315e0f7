package dev.shale.storage.core;

import dev.shale.storage.memtable.Memtable;

/**
 * A memtable that takes no more writes and waits for its flush, with the number of the log
 * segment holding its records: that segment may go only once the memtable is in a table.
 */
record FrozenMemtable(Memtable memtable, long logNumber) {}
