/**
 * The client side of internode calls: the pooled connections to the other nodes
 * ({@link dev.shale.server.peer.InternalClient}, {@code PeerClient}), each call and its answer
 * or failure.
 *
 * <p>It depends on Netty, the cluster module and the server's {@code Reasons} only: it knows nothing
 * of the HTTP front end, of coordination or of scans, which use it.
 */
package dev.shale.server.peer;
