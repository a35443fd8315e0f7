/**
 * API tokens: who a client request is from ({@link dev.shale.cluster.auth.Principal}) and what it
 * may do ({@link dev.shale.cluster.auth.Grant}), the stored token set and its changes. Stored and
 * agreed elsewhere (a file on a node alone, the cluster map's Raft group on a cluster); checked
 * by the server before it routes a request. See docs/design.md, "API tokens", and
 * docs/format.md, "API tokens".
 */
package dev.shale.cluster.auth;
