package dev.shale.server.peer;

/**
 * A peer connection whose handshake failed: the peer refused it (its reason quoted), could not
 * prove the cluster secret, closed it, or did not finish in time. To the down mark, as good as a
 * refused connection: the peer is not usable now.
 */
public final class HandshakeRefused extends Exception {
  HandshakeRefused(String reason) {
    super(reason, null, false, false); // an expected outcome: no stack trace
  }
}
