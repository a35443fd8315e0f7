/**
 * Range scans: routing and checking {@code GET /v0/entities} ({@link dev.shale.server.scan.Scans}),
 * a node's own range streamed from the engine on the scan threads, a cluster scan's streams
 * per node merged into one answer, and a repair's TREE and DIGESTS served from the engine the
 * same way.
 *
 * <p>It depends on the server's shared pieces and writes its answers through the front end's
 * {@code StreamingAnswer} and {@code Responses} ({@code http}); it knows nothing of coordination.
 */
package dev.shale.server.scan;
