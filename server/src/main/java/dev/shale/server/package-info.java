/**
 * The server's wiring ({@link dev.shale.server.ShaleServer}, {@code ServerInitializer},
 * {@link dev.shale.server.ServerOptions}) and the pieces its subpackages share: the storage calls
 * ({@code EntityService}, {@code StoragePool}, {@code EngineBatches}) and the one-line reasons.
 *
 * <p>Subpackages: {@code http} (the front end), {@code coordination} (the replicas the cluster's coordinator reaches),
 * {@code peer} (calls to other nodes) and {@code scan} (range scans); see docs/design.md,
 * "Server packages", for who may use whom.
 */
package dev.shale.server;
