package dev.shale.cluster;

/** Where a request for a key is served: here, or at the node that owns the key. */
public sealed interface Route {

  /** Serve it from this node's store. */
  enum Local implements Route {
    INSTANCE
  }

  /** Forward it to {@code owner} and relay the answer. */
  record Forward(NodeAddress owner) implements Route {}
}
