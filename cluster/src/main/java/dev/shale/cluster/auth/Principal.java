package dev.shale.cluster.auth;

/**
 * Who a request is from, and what it may do. Today a bearer token resolves to one; a mutual-TLS
 * client certificate may later resolve to the token its common name names, with that token's
 * grant ({@link TokenAuth} is the one place that resolves requests).
 *
 * @param name the token's name (logged with refusals; never its secret)
 */
public record Principal(String name, Grant grant) {}
