package dev.shale.server.repair;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.coordination.ReplicaReply;
import dev.shale.cluster.repair.RepairFailedException;
import dev.shale.server.coordination.ReplicaCalls;
import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A repair's whole-record reads and writes of one key on a replica, this node or a peer: the
 * coordinator's own {@link ReplicaCalls} (READ and WRITE on the internode protocol, the engine
 * here), waited for by the repair's thread. A write carries the record's original version, as a
 * read repair's or a hint's does.
 */
final class ReplicaRecords {
  private final ReplicaCalls calls;
  private final Supplier<EventExecutor> loops; // the I/O loops: replica calls complete on one
  private final long timeoutMillis;
  private final Env env; // the node's: a wait for a replica's answer runs out on its clock

  ReplicaRecords(ReplicaCalls calls, Supplier<EventExecutor> loops, long timeoutMillis, Env env) {
    this.env = env;
    this.calls = calls;
    this.loops = loops;
    this.timeoutMillis = timeoutMillis;
  }

  @Nullable Entry read(NodeAddress replica, byte[] key) {
    return switch (await(replica, done -> calls.read(loops.get(), replica, key, calls.mapVersion(), done))) {
      case ReplicaReply.Read(Entry entry) -> entry;
      case ReplicaReply.Failed(String reason) -> throw new RepairFailedException(reason);
      case ReplicaReply.Stored ignored -> throw new RepairFailedException(replica + " answered a read as a write");
      case ReplicaReply.TooFarAhead ignored -> throw new RepairFailedException(replica + " answered a read as a write");
    };
  }

  void write(NodeAddress replica, Entry record) {
    ReplicaReply reply = await(replica, done -> calls.write(loops.get(), replica, record.key(), record.value(), record.version(), record.expiresAtMillis(), calls.mapVersion(), done));
    switch (reply) {
      case ReplicaReply.Failed(String reason) -> throw new RepairFailedException(reason);
      case ReplicaReply.TooFarAhead(String reason) -> throw new RepairFailedException(reason);
      default -> {}
    }
  }

  private ReplicaReply await(NodeAddress replica, Consumer<Consumer<ReplicaReply>> call) {
    CompletableFuture<ReplicaReply> reply = new CompletableFuture<>();
    call.accept(reply::complete);
    try {
      // The call's own timeout (--replica-timeout) answers first; this one only bounds the wait.
      return env.get(reply, 2 * timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new RepairFailedException(replica + " did not answer within " + 2 * timeoutMillis + " ms");
    } catch (ExecutionException e) {
      throw new RepairFailedException(replica + ": " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RepairFailedException("interrupted while waiting for " + replica);
    }
  }
}
