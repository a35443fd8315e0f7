/**
 * The HTTP front end: the strict codec and the pipeline's limits, the entity handler that turns a
 * request into a call of {@link dev.shale.server.EntityService} (or of the coordinator), and the
 * per-connection order of answers ({@code CallOrder}, {@code ResponseQueue}, the body and answer budgets).
 *
 * <p>It depends on the server's shared pieces, on the cluster's coordinator for replicated requests and
 * hands range scans to {@code scan}'s {@code Scans}; {@code scan} in turn builds its answers on this
 * package's {@link dev.shale.server.http.StreamingAnswer}, {@code Responses} and request parsing, the
 * one place where two of these packages use each other.
 */
package dev.shale.server.http;
