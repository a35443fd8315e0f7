package dev.shale.cluster.coordination;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * A deterministic single-threaded scheduler in virtual time: tasks wait in a queue ordered by the
 * virtual moment they are due (ties in the order they were scheduled) and run one at a time, the
 * clock jumping to each task's moment. Nothing runs on its own: {@link #runUntilIdle} drives it.
 */
final class VirtualTime {
  /** More tasks than a run of the simulation ever needs: past it, something schedules forever. */
  private static final long MAX_TASKS = 50_000_000;

  private record Task(long atMillis, long sequence, Runnable work) {}

  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>(Comparator.comparingLong(Task::atMillis).thenComparingLong(Task::sequence));
  private long nowMillis;
  private long sequence;
  private long ran;
  private @Nullable Loop current; // the loop whose task is running, if any

  long nowMillis() {
    return nowMillis;
  }

  /** Runs {@code work} {@code delayMillis} from now. */
  void after(long delayMillis, Runnable work) {
    if (delayMillis < 0) throw new IllegalArgumentException("a delay is never negative: " + delayMillis);
    tasks.add(new Task(nowMillis + delayMillis, sequence++, work));
  }

  /** Runs tasks, in virtual time order, until none is left. */
  void runUntilIdle() {
    for (Task task = tasks.poll(); task != null; task = tasks.poll()) {
      if (++ran > MAX_TASKS) throw new IllegalStateException("the simulation never went idle: " + ran + " tasks ran");
      nowMillis = task.atMillis();
      task.work().run();
    }
  }

  /** A new executor standing for one node's event loop: its tasks run in this virtual time. */
  Loop newLoop(String name) {
    return new Loop(name);
  }

  /** An event loop of the simulation: an {@link Executor} that knows when it is running. */
  final class Loop implements Executor {
    private final String name;

    private Loop(String name) {
      this.name = name;
    }

    @Override
    public void execute(Runnable work) {
      after(0, () -> {
        Loop outer = current;
        current = this;
        try {
          work.run();
        } finally {
          current = outer;
        }
      });
    }

    /** Whether the task running now is this loop's: the thread a callback "runs on". */
    boolean isCurrent() {
      return current == this;
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
