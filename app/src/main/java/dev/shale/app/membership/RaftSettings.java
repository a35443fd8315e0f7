package dev.shale.app.membership;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.TimeDuration;

/** The Ratis settings of a node's Raft server and clients, each with why. */
final class RaftSettings {
  /** A snapshot (the whole map) every this many applied entries; the log is purged up to it. */
  static final long SNAPSHOT_EVERY_ENTRIES = 1_000;

  private RaftSettings() {}

  static RaftProperties properties(Path raftDir, String host, int port) {
    RaftProperties properties = new RaftProperties();
    // gRPC, not Netty: of Ratis's transports only gRPC takes TLS (RaftTls). It serves the peers,
    // the clients and the admin calls on this one port (their own ports unset), in clear or all
    // on TLS.
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    GrpcConfigKeys.Server.setHost(properties, host);
    GrpcConfigKeys.Server.setPort(properties, port);
    RaftServerConfigKeys.setStorageDir(properties, List.of(raftDir.toFile()));
    // The map changes rarely and nobody waits on a leader for reads: longer election timeouts than
    // Ratis's 150-300 ms keep a busy node (a compaction, a GC pause) from losing its leadership.
    RaftServerConfigKeys.Rpc.setTimeoutMin(properties, TimeDuration.valueOf(1_000, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(properties, TimeDuration.valueOf(2_000, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(properties, TimeDuration.valueOf(200, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(properties, TimeDuration.valueOf(600, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, SNAPSHOT_EVERY_ENTRIES);
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
    return properties;
  }
}
