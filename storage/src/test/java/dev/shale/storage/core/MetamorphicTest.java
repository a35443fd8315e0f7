package dev.shale.storage.core;

import dev.shale.storage.Vfs;
import dev.shale.storage.core.MetamorphicOptionSets.OptionSet;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's metamorphic test (as Pebble's): a seeded list of operations ({@link
 * MetamorphicOpGenerator}: puts, deletes, writes with older or newer versions, tryWriteAll
 * batches, values with a TTL and clock advances, gets, reads whose leases are held across
 * flushes and reopens, partly read scans, compactions, checkpoints opened and read, reopens and
 * power losses) runs under each of {@link MetamorphicOptionSets}. Every answer is checked
 * against the model ({@link EngineTesting.Model}) as it comes, and each option set must give the
 * first one's answer to every operation, versions the clock issued included.
 *
 * <p>The crash rule. What a power loss keeps depends on the sync mode and on timing (the
 * interval sync, flushes), so the rule accepts, for each option set, a store equal to the model
 * after any prefix of the writes since the last power loss that holds every durable one (every
 * acknowledged write in ALWAYS, every write a log sync covered in INTERVAL: {@link
 * SurvivingPrefix}). The model is not rewound: the writes lost are written again, with their
 * versions and expiries (a client retrying, as replication would), so every option set goes on
 * from the same state and later answers stay comparable. Rewinding instead would give each option
 * set its own history after the first crash, with nothing left to compare; a durability point
 * before each crash would check only that synced data survives, not which unsynced data may go.
 * The crash's own answer is the whole store once the lost writes are back.
 *
 * <p>A failure names the seed, the operation's index, the option set, the operation and both
 * answers. Replay it with {@code -Dshale.seed=<seed>} (and the run's {@code
 * -Dshale.metamorphic.operations=<n>}: a shorter list is a prefix of a longer one), one option
 * set alone with {@code -Dshale.metamorphic.optionSet=<name>} (checked against the model only)
 * or two that disagreed with {@code -Dshale.metamorphic.optionSet=<first>,<second>}.
 * Run long with {@code -Dshale.metamorphic.seeds=<n>} and {@code -Dshale.metamorphic.operations=<n>}.
 */
class MetamorphicTest {
  private static final int CI_SEEDS = 2;
  private static final int CI_OPERATIONS = 800;

  @TempDir Path dir;

  @Test
  void everyOptionSetGivesTheModelsAnswerToEveryOperation() throws IOException {
    long first = TestSeed.forTest("MetamorphicTest");
    int seeds = Integer.getInteger("shale.metamorphic.seeds", System.getProperty("shale.seed") != null ? 1 : CI_SEEDS);
    int operations = Integer.getInteger("shale.metamorphic.operations", CI_OPERATIONS);
    List<OptionSet> sets = chosenOptionSets();
    SplittableRandom seedsAfterTheFirst = new SplittableRandom(first);
    long seed = first;
    for (int i = 0; i < seeds; i++) {
      if (i > 0) seed = seedsAfterTheFirst.nextLong();
      System.out.println("MetamorphicTest: seed-run " + (i + 1) + " of " + seeds + ": seed " + seed
          + " (replay with -Dshale.seed=" + seed + ")");
      runSeed(seed, operations, sets);
    }
  }

  private void runSeed(long seed, int operations, List<OptionSet> sets) throws IOException {
    List<MetamorphicOp> ops = new MetamorphicOpGenerator(seed).operations(operations);
    List<String> reference = null;
    OptionSet referenceSet = null;
    Path seedDir = dir.resolve("seed-" + seed);
    for (OptionSet set : sets) {
      List<String> answers = runOptionSet(seed, ops, set, seedDir.resolve(set.name()), reference, referenceSet);
      if (reference == null) {
        reference = answers;
        referenceSet = set;
      }
    }
    MetamorphicRun.deleteTree(seedDir);
  }

  private static List<String> runOptionSet(
      long seed, List<MetamorphicOp> ops, OptionSet set, Path runDir, List<String> reference, OptionSet referenceSet)
      throws IOException {
    List<String> answers = new ArrayList<>(ops.size());
    MetamorphicRun run = new MetamorphicRun(set, runDir);
    int index = 0;
    try (run) {
      // The answer after the last operation is the whole store's, at the end.
      for (; index <= ops.size(); index++) {
        String answer = index < ops.size() ? run.run(ops.get(index)) : run.finish();
        answers.add(answer);
        if (reference != null && !reference.get(index).equals(answer)) {
          throw new AssertionError(where(seed, index, set, ops) + ": answered " + answer
              + ", where option set " + referenceSet + " answered " + reference.get(index)
              + " (replay the two with -Dshale.metamorphic.optionSet=" + referenceSet + "," + set + ")");
        }
      }
    } catch (AssertionError | RuntimeException e) {
      if (e.getMessage() != null && e.getMessage().startsWith("seed ")) throw e;
      throw new AssertionError(where(seed, index, set, ops) + ": " + e, e);
    }
    System.out.println("seed " + seed + ", option set " + set + ": " + ops.size() + " operations agree; " + run.stats());
    return answers;
  }

  private static String where(long seed, int index, OptionSet set, List<MetamorphicOp> ops) {
    return "seed " + seed + ", operation " + index + " (" + (index < ops.size() ? ops.get(index) : "the last checks")
        + "), option set " + set + " (replay alone with -Dshale.seed=" + seed + " -Dshale.metamorphic.operations="
        + ops.size() + " -Dshale.metamorphic.optionSet=" + set + ")";
  }

  private List<OptionSet> chosenOptionSets() throws IOException {
    String only = System.getProperty("shale.metamorphic.optionSet");
    List<OptionSet> sets = new ArrayList<>();
    for (OptionSet set : MetamorphicOptionSets.all()) {
      if (only != null && !Arrays.asList(only.split(",")).contains(set.name())) continue;
      if (set.directReads() && !directReadsWork()) {
        System.out.println("MetamorphicTest: skipping option set " + set + ": the file system of " + dir + " refuses O_DIRECT");
        continue;
      }
      sets.add(set);
    }
    if (sets.isEmpty()) throw new AssertionError("no option set named " + only + " (see MetamorphicOptionSets)");
    return sets;
  }

  // Reads a block of a file written here with O_DIRECT: tmpfs, for one, refuses the flag.
  private boolean directReadsWork() throws IOException {
    Path probe = dir.resolve("direct-read-probe");
    Files.write(probe, new byte[16 << 10]);
    try (Vfs.ReadableFile file = Vfs.realDirect().open(probe); Arena arena = Arena.ofConfined()) {
      file.readBlock(arena.allocate(4096), 4096);
      return true;
    } catch (IOException refused) {
      return false;
    } finally {
      Files.delete(probe);
    }
  }
}
