package dev.shale.cluster;

import java.util.concurrent.CompletionStage;

/**
 * Delivers one hint to its target replica: the server implements it over its internal HTTP
 * client, writing the hint's key, value (or tombstone) and original version there.
 *
 * <p>{@link #deliver} must not block: it starts the delivery and returns. Its stage completes
 * with true once the replica stored the record (or already held a newer one), and exceptionally
 * with {@link HintNotDelivered} (saying why: the replica is down, did not answer, or refused) when
 * it did not or the outcome is unknown (false says the same without a reason, and any other
 * exception is quoted as it is); the hint is then kept and tried again
 * later, which is harmless because the replica keeps the newest version of a key whatever order
 * records arrive in. A stage that does not complete within {@link
 * HintedHandoff#DELIVERY_TIMEOUT_MILLIS} counts as a failure. It may complete on any thread.
 */
@FunctionalInterface
public interface HintSender {
  CompletionStage<Boolean> deliver(Hint hint);
}
