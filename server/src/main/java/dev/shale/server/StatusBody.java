package dev.shale.server;

import dev.shale.cluster.ClockOffsets;
import dev.shale.cluster.coordination.ReplicationStats;
import dev.shale.cluster.handoff.RangeProgress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import dev.shale.server.repair.RepairRunner;
import dev.shale.storage.EngineHealth;
import dev.shale.storage.EngineStats;
import java.util.List;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * The JSON of {@code GET /v0/status}: whether the node serves fully ("serving") or around a
 * problem ("degraded": writes refused, damaged files), with the reasons and what to do; what tools
 * on the same host need (the pid, to attach a profiler; the heap, to size a store "10x the heap");
 * where its memory goes (its budget, heap, native memory, answers, resident size);
 * the engine's sizes, so that a benchmark can say what store it measured; and the replication
 * counters (read repairs, hints, anti-entropy repairs), which tests and operators watch to see
 * replicas converge, with the replication factor they are counted under.
 */
public final class StatusBody {
  private static final long PID = ProcessHandle.current().pid();

  private StatusBody() {}

  /** {@code body} (an object, as {@link #of} makes) with one more member, {@code name}: {@code json}. */
  public static String withMember(String body, String name, String json) {
    if (!body.endsWith("}")) throw new IllegalArgumentException("not a JSON object: " + body);
    return body.substring(0, body.length() - 1) + ", " + quote(name) + ": " + json + "}";
  }

  /**
   * {@code replicationFactor}: how many nodes keep each key (1 for a node without a cluster);
   * {@code topology}: the cluster map, as "topology" (none without a cluster); {@code removal}:
   * why this node, removed from that map, refuses clients (status "removed"), or null; {@code
   * clock}: this node's clock offsets (null without peers), whose fence makes it "degraded";
   * {@code repairs}: this node's repairs, null without peers (none ran); {@code handoff}: the
   * pulls of a pending node change (empty without one).
   */
  public static String of(EngineStats stats, EngineHealth health, MemoryUse memory, ReplicationStats replication,
      int replicationFactor, @Nullable ClusterMap topology, @Nullable String removal, @Nullable ClockOffsets clock,
      @Nullable RepairRunner repairs, List<RangeProgress> handoff) {
    String fence = clock == null ? null : clock.fence();
    String status = removal != null ? "removed"
        : clock != null && !clock.isStarted() ? "starting"
        : health.isDegraded() || fence != null ? "degraded" : "serving";
    return "{\"status\": \"" + status + "\""
        + (removal == null ? "" : ", \"removal\": " + quote(removal))
        + (clock == null ? "" : ", \"clock\": " + clockObject(clock, fence))
        + ", " + healthMembers(health)
        + ", \"pid\": " + PID
        + ", \"maxHeapBytes\": " + Runtime.getRuntime().maxMemory()
        + ", \"memtableBytes\": " + stats.memtableBytes()
        + ", \"tables\": " + stats.tables()
        + ", \"tableBytes\": " + stats.tableBytes()
        + ", \"tablesPerLevel\": " + stats.tablesPerLevel()
        + ", \"compactions\": " + stats.compactions()
        + ", \"writeStalls\": " + stats.writeStalls()
        + ", \"valueLeases\": " + stats.valueLeases()
        + ", \"memory\": " + memory.json()
        + ", \"replicationFactor\": " + replicationFactor
        + ", " + replicationMembers(replication)
        + ", \"repairRuns\": " + (repairs == null ? 0 : repairs.runs())
        + ", \"repairRecordsExchanged\": " + (repairs == null ? 0 : repairs.recordsExchanged())
        + ", \"handoff\": " + handoffMember(handoff)
        + (topology == null ? "" : ", \"topology\": " + topologyObject(topology)) + "}";
  }

  /**
   * The pulls of the node change under way (docs/design.md, "Handoff"): how many ranges this node
   * gains and has received, the records and bytes so far, and each pull; all zero without one.
   */
  private static String handoffMember(List<RangeProgress> handoff) {
    StringJoiner pulls = new StringJoiner(", ", "[", "]");
    for (RangeProgress range : handoff) {
      pulls.add("{\"pull\": " + quote(range.name()) + ", \"state\": \"" + (range.done() ? "done" : "open")
          + "\", \"records\": " + range.records() + ", \"bytes\": " + range.bytes() + "}");
    }
    return "{\"ranges\": " + handoff.size()
        + ", \"rangesDone\": " + handoff.stream().filter(RangeProgress::done).count()
        + ", \"records\": " + handoff.stream().mapToLong(RangeProgress::records).sum()
        + ", \"bytes\": " + handoff.stream().mapToLong(RangeProgress::bytes).sum()
        + ", \"pulls\": " + pulls + "}";
  }

  /** The replication counters and gauges: read repairs, and what became of the writes replicas missed. */
  private static String replicationMembers(ReplicationStats replication) {
    return "\"readRepairs\": " + replication.readRepairs()
        + ", \"hintsStored\": " + replication.hintsStored()
        + ", \"hintsRefused\": " + replication.hintsRefused()
        + ", \"hintsDelivered\": " + replication.hintsDelivered()
        + ", \"hintsPending\": " + replication.hintsPending()
        + ", \"hintsPendingBytes\": " + replication.hintsPendingBytes()
        + ", \"hintsDroppedTooFarAhead\": " + replication.hintsDroppedTooFarAhead();
  }

  /**
   * {"fenced": bool, "reason": ... (when fenced), "offsetsMillis": {peer: ms, ...}}: whether this
   * node's clock is fenced (docs/design.md, "Clock offsets") and each measured peer's offset.
   */
  private static String clockObject(ClockOffsets clock, @Nullable String fence) {
    StringJoiner offsets = new StringJoiner(", ", "{", "}");
    clock.offsetsMillis().forEach((peer, millis) -> offsets.add(quote(peer) + ": " + millis));
    return "{\"fenced\": " + (fence != null) + (fence == null ? "" : ", \"reason\": " + quote(fence))
        + ", \"offsetsMillis\": " + offsets + "}";
  }

  /**
   * {"version": n, "members": [{"url": ..., "state": ..., "progress": ...}, ...]}: the cluster map
   * as this node has it; a member leaving because it is down has {@code "dead": true} after its state.
   */
  private static String topologyObject(ClusterMap map) {
    StringJoiner members = new StringJoiner(", ", "[", "]");
    for (Member m : map.members()) {
      members.add("{\"url\": " + quote(m.address().url()) + ", \"state\": " + quote(m.state().wireName())
          + (m.dead() ? ", \"dead\": true" : "") + ", \"progress\": " + quote(m.progress()) + "}");
    }
    return "{\"version\": " + map.version() + ", \"replicationFactor\": " + map.replicationFactor() + ", \"members\": " + members + "}";
  }

  /**
   * "writes" ("accepted" or "refused"); when refused, "writeRefusal" (why) and
   * "refusalClearsByItself"; and "damage", the damaged files the engine serves around, those whose
   * bytes opening dropped (damage it accepted) with "accepted": true, "offset" and "droppedBytes".
   */
  private static String healthMembers(EngineHealth health) {
    StringBuilder members = new StringBuilder();
    if (health.writeRefusal() == null) {
      members.append("\"writes\": \"accepted\"");
    } else {
      members.append("\"writes\": \"refused\", \"writeRefusal\": ").append(quote(health.writeRefusal()))
          .append(", \"refusalClearsByItself\": ").append(health.refusalClearsByItself());
    }
    StringJoiner damage = new StringJoiner(", ", "[", "]");
    for (EngineHealth.Damage d : health.damage()) {
      EngineHealth.DroppedBytes dropped = d.dropped();
      damage.add("{\"file\": " + quote(d.file().toString()) + ", \"problem\": " + quote(d.problem())
          + ", \"remedy\": " + quote(d.remedy())
          + (dropped == null ? "" : ", \"accepted\": true, \"offset\": " + dropped.offset()
              + ", \"droppedBytes\": " + dropped.bytes())
          + "}");
    }
    return members.append(", \"damage\": ").append(damage).toString();
  }

  /** {@code text} as a JSON string: quotes, backslashes and control characters escaped. */
  public static String quote(String text) {
    StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> quoted.append("\\\"");
        case '\\' -> quoted.append("\\\\");
        case '\n' -> quoted.append("\\n");
        case '\r' -> quoted.append("\\r");
        case '\t' -> quoted.append("\\t");
        default -> {
          if (c < 0x20) quoted.append(String.format("\\u%04x", (int) c));
          else quoted.append(c);
        }
      }
    }
    return quoted.append('"').toString();
  }
}
