/**
 * Internode messaging: the binary protocol of docs/format.md ("Internode protocol") over the
 * node's one port. Frames ({@link dev.shale.server.peer.Frames}, the codec), the handshake that
 * authenticates each connection once, the client side ({@link dev.shale.server.peer.PeerLinks}:
 * per peer one multiplexed connection on each event loop, bounded, with a brief down mark) and
 * the receiving side ({@link dev.shale.server.peer.PeerRequestHandler}: replica reads and writes
 * served from this node's engine).
 *
 * <p>It depends on Netty, the cluster module and the server's wiring pieces ({@code EntityService},
 * {@code StoragePool}) and the front end's {@code AnswerBudget} only: it knows nothing of coordination or of scans,
 * which use it ({@link dev.shale.server.peer.PeerScans} is the scans' seam).
 */
package dev.shale.server.peer;
