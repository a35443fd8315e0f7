/**
 * The server's side of replication: the replicas the cluster's coordinator ({@link
 * dev.shale.cluster.coordination.Coordinator}, where the quorum logic lives) reaches through its
 * {@link dev.shale.cluster.coordination.Replicas} seam ({@code ReplicaCalls}: this node's engine,
 * or a peer), and the hinted handoff's way to a replica ({@code HintDeliveries}).
 *
 * <p>It depends on the server's shared pieces, and {@code ReplicaCalls} reaches the other replicas
 * through {@code peer} (with the entity target {@code http}'s {@code QueryParams} builds); it knows
 * nothing of connections, the pipeline or scans.
 */
package dev.shale.server.coordination;
