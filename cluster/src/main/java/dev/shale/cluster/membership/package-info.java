/**
 * The cluster map: the members of the cluster with their states, versioned, changed only by
 * {@link dev.shale.cluster.membership.TopologyChange}s that every member applies in the same order
 * (agreed with Raft, outside this package: the module knows nothing of the network). See
 * docs/design.md, "Membership".
 */
package dev.shale.cluster.membership;
