/**
 * Anti-entropy repair's network side (docs/design.md, "Anti-entropy repair"): the repair thread
 * and its schedule ({@link dev.shale.server.repair.RepairRunner}), and the two sides of a pair as
 * this node reaches them, its own engine or a peer over TREE, DIGESTS, READ and WRITE. The
 * comparison itself, which knows nothing of the network, is the cluster module's
 * {@code dev.shale.cluster.repair}.
 *
 * <p>It depends on the server's shared pieces, {@code peer} (dialing, frames),
 * {@code coordination}'s {@code ReplicaCalls} and {@code scan}'s {@code RecordFrames}; the serving
 * side of TREE and DIGESTS is in {@code scan}, beside the peer scans whose machinery it shares.
 */
package dev.shale.server.repair;
