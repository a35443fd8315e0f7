/**
 * Replication's coordinator side: a request sent to the key's replicas in parallel, answered once
 * {@code ack} of them did ({@link dev.shale.server.coordination.Coordinator}, {@code Tally}), and
 * the writes a replica missed, handed to hinted handoff ({@link dev.shale.server.coordination.MissedWrites}).
 *
 * <p>It depends on the server's shared pieces, and {@code ReplicaCalls} reaches the other replicas
 * through {@code peer} (with the entity target {@code http}'s {@code QueryParams} builds); it knows
 * nothing of connections, the pipeline or scans.
 */
package dev.shale.server.coordination;
