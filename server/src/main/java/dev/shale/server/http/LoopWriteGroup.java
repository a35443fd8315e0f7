package dev.shale.server.http;

import dev.shale.server.EntityResult;
import dev.shale.server.EntityService;
import io.netty.util.concurrent.EventExecutor;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The client writes one event loop receives in one turn, written to the engine as one group
 * ({@link EntityService#tryStoreAll}): one lock and one write() of the log for all of them,
 * where writing each as it is decoded costs one each. A PUT at saturation spent 9% of the node's
 * CPU in those write() calls (docs/perf/single-node.md).
 *
 * <p>The group is written by a task of the event loop: a task queued while the loop handles the
 * connections that epoll found readable runs after the last of them, so the group holds every
 * write of that turn. Nothing is answered before the group is in the log: an acknowledged write
 * is in the page cache, as it was written alone ({@code --sync interval}).
 *
 * <p>Confined to its event loop: {@link #add} is called there and the group written there.
 */
public final class LoopWriteGroup {
  private static final System.Logger LOG = System.getLogger(LoopWriteGroup.class.getName());

  private final EventExecutor loop;
  private final EntityService service;
  private List<EntityService.Write> writes = new ArrayList<>();
  private List<Consumer<@Nullable EntityResult>> answers = new ArrayList<>();

  public LoopWriteGroup(EventExecutor loop, EntityService service) {
    this.loop = loop;
    this.service = service;
  }

  /**
   * Adds a write to this turn's group; {@code answer} gets its result on this loop once the
   * group is written: {@link EntityService.Write#written} (stored, or deleted for a null value),
   * a failure, or null when the engine could not take the group at once and nothing was
   * written (the caller then writes it on a thread that may wait).
   */
  void add(EntityService.Write write, Consumer<@Nullable EntityResult> answer) {
    assert loop.inEventLoop();
    if (writes.isEmpty()) loop.execute(this::write);
    writes.add(write);
    answers.add(answer);
  }

  private void write() {
    // Taken out first: an answer may start the next request of its connection, whose write
    // joins the next group.
    List<EntityService.Write> group = writes;
    List<Consumer<@Nullable EntityResult>> waiting = answers;
    writes = new ArrayList<>(group.size());
    answers = new ArrayList<>(group.size());
    EntityResult result = service.tryStoreAll(group);
    for (int i = 0; i < group.size(); i++) {
      EntityResult own = result != null && result.outcome() == EntityResult.Outcome.STORED ? group.get(i).written() : result;
      try {
        waiting.get(i).accept(own);
      } catch (RuntimeException e) {
        // A bug in one connection's answer must not leave the others of the group unanswered.
        LOG.log(Level.ERROR, "answering a grouped write failed", e);
      }
    }
  }
}
