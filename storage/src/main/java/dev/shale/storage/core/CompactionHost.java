package dev.shale.storage.core;

import dev.shale.storage.table.TableMeta;
import java.io.IOException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The engine as the compaction thread sees it: the current view to compact from, and the commit
 * of a compaction as a {@link FileSetCommit.Change}.
 */
final class CompactionHost implements Compactor.Host {
  private final CurrentView view;
  private final FileSetCommit fileSets;
  private final DamageRegistry damage;
  private final Hooks.CrashPoints crashPoints;

  CompactionHost(CurrentView view, FileSetCommit fileSets, DamageRegistry damage,
      Hooks.CrashPoints crashPoints) {
    this.view = view;
    this.fileSets = fileSets;
    this.damage = damage;
    this.crashPoints = crashPoints;
  }

  @Override
  public @Nullable ReadView retainView() {
    return view.retainUnlessClosed();
  }

  @Override
  public boolean commit(Compaction compaction, List<SharedTable> outputs) throws IOException {
    return fileSets.commit(new Compacted(compaction, outputs));
  }

  /** A compaction's inputs replaced by its outputs, level by level. */
  private final class Compacted implements FileSetCommit.Change {
    private final Compaction compaction;
    private final List<SharedTable> outputs;

    Compacted(Compaction compaction, List<SharedTable> outputs) {
      this.compaction = compaction;
      this.outputs = outputs;
    }

    @Override
    public String kind() {
      return "compaction";
    }

    @Override
    public List<TableMeta> tablesAfter(ReadView current) {
      Levels next = current.levels().withReplaced(compaction.allInputs(), outputs);
      return next.all().stream().map(SharedTable::meta).toList();
    }

    @Override
    public boolean flushes(FrozenMemtable frozen) {
      return false;
    }

    @Override
    public ReadView viewAfter(ReadView current) {
      return current.withCompacted(compaction.allInputs(), outputs);
    }

    // The inputs' files go once no view or scan pins them; a moved table's file stays. Not
    // called once close has let the view go: the next open deletes the inputs then.
    @Override
    public void published() {
      if (!compaction.isTrivialMove()) {
        for (SharedTable input : compaction.allInputs()) {
          input.markObsolete();
          damage.forget(input.path()); // rewritten: what was wrong with it is gone with it
        }
      }
    }

    @Override
    public void installed() {
      crashPoints.reached("compaction.afterInstall");
    }

    // A move's outputs are handles on its inputs' files, which stay whatever happens.
    @Override
    public List<SharedTable> discardedOnFailure() {
      return compaction.isTrivialMove() ? List.of() : outputs;
    }
  }
}
