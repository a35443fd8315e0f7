package dev.shale.sim;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/**
 * The simulation's one scheduler: tasks wait in a queue ordered by the virtual millisecond they
 * are due, ties in the order they were scheduled, and run one at a time on the caller's thread,
 * the clock jumping to each task's moment. Nothing runs by itself; {@link #runUntil} drives it.
 * Same tasks scheduled in the same order: same run, which is what makes a seed replayable.
 */
final class VirtualTime {
  /** More tasks than one run ever needs: past it, something schedules for ever. */
  private static final long MAX_TASKS = 20_000_000;

  private record Task(long atMillis, long sequence, Runnable work) {}

  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>(Comparator.comparingLong(Task::atMillis).thenComparingLong(Task::sequence));
  private long nowMillis;
  private long sequence;
  private long ran;

  long nowMillis() {
    return nowMillis;
  }

  /** Runs {@code work} {@code delayMillis} from now. */
  void after(long delayMillis, Runnable work) {
    if (delayMillis < 0) throw new IllegalArgumentException("a delay is never negative: " + delayMillis);
    tasks.add(new Task(nowMillis + delayMillis, sequence++, work));
  }

  /** Runs the tasks due up to {@code endMillis}, in order, and leaves the clock there. */
  void runUntil(long endMillis) {
    runUntil(endMillis, () -> false);
  }

  /**
   * Runs tasks in order until {@code done} says so (checked after each task) or the next is due
   * after {@code endMillis}; returns whether {@code done} said so. The clock ends at the last
   * task's moment if done, else at {@code endMillis}.
   */
  boolean runUntil(long endMillis, BooleanSupplier done) {
    if (done.getAsBoolean()) return true;
    for (Task task = tasks.peek(); task != null && task.atMillis() <= endMillis; task = tasks.peek()) {
      tasks.poll();
      if (++ran > MAX_TASKS) throw new IllegalStateException("the simulation never went idle: " + ran + " tasks ran");
      nowMillis = task.atMillis();
      task.work().run();
      if (done.getAsBoolean()) return true;
    }
    nowMillis = Math.max(nowMillis, endMillis);
    return false;
  }
}
