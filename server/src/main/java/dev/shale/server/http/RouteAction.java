package dev.shale.server.http;

import dev.shale.cluster.Consistency;
import dev.shale.server.EntityResult;
import dev.shale.server.EntityService;
import io.netty.handler.codec.http.FullHttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What a request comes to, as routing decides it ({@link EntityHttpHandler}, {@link NodeRoutes}):
 * an answer now, a storage call whose result is the answer, a request coordinated over replicas,
 * an operator's call answered later, or a streamed scan. The handler runs each in its turn
 * ({@link CallOrder}).
 */
sealed interface RouteAction {
  /** An answer now, with no call behind it. */
  record Answer(FullHttpResponse response) implements RouteAction {}

  /**
   * A call of the engine; {@code usesBody}: the body must live until the call returns.
   * {@code grouped}, for a client's write: the record it writes, which first joins the event
   * loop's write group; {@code work} runs on the pool only if the engine cannot take the group.
   * {@code answersValue}: its answer may carry a stored value (its answer bytes are taken first).
   */
  record Call(
      Supplier<EntityResult> work, @Nullable Supplier<@Nullable EntityResult> fromMemory,
      EntityService.@Nullable Write grouped, boolean write, boolean usesBody, boolean answersValue)
      implements RouteAction {
    /** A read, which {@code fromMemory} answers on the event loop when it can (null: it cannot), and {@code work} otherwise. */
    static Call read(Supplier<EntityResult> work, Supplier<@Nullable EntityResult> fromMemory) {
      return new Call(work, fromMemory, null, false, false, true);
    }

    /** An operator's call: not a write (it changes no record), answered with a line. */
    static Call operation(Supplier<EntityResult> work) {
      return new Call(work, null, null, false, false, false);
    }

    static Call write(Supplier<EntityResult> work, EntityService.Write grouped, boolean usesBody) {
      return new Call(work, null, grouped, true, usesBody, false);
    }
  }

  /**
   * An operator's call whose answer comes later, on another thread (a repair, a change of the
   * cluster map): it starts in its turn, and its answer comes when the future completes.
   */
  record Pending(Supplier<CompletableFuture<FullHttpResponse>> start) implements RouteAction {}

  /** A scan: its answer streams when its turn comes. */
  record Stream(StreamingAnswer answer) implements RouteAction {}

  /** A client's request coordinated over its key's replicas; {@code value} null: a read or a delete. */
  record Coordinate(byte[] key, byte @Nullable [] value, boolean write, Consistency consistency, long ttlMillis)
      implements RouteAction {}

  /** Whether the request's body must live until the action is done with it. */
  static boolean usesBody(RouteAction action) {
    return switch (action) {
      case Answer ignored -> false;
      case Call call -> call.usesBody();
      case Coordinate coordinate -> coordinate.value() != null;
      case Pending ignored -> false;
      case Stream ignored -> false;
    };
  }
}
