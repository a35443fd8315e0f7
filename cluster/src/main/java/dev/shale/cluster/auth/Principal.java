package dev.shale.cluster.auth;

/**
 * Who a request is from, and what it may do: the token its bearer secret is, or the token its
 * mutual-TLS client certificate's common name names, with that token's grant ({@link TokenAuth}
 * is the one place that resolves requests).
 *
 * @param name the token's name (logged with refusals; never its secret)
 */
public record Principal(String name, Grant grant) {}
