package dev.shale.server.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.jspecify.annotations.Nullable;

/**
 * Presents the node's certificate in force, on both sides of a handshake, for a transport that
 * takes JDK key managers rather than Netty contexts (the Raft group's gRPC transport). It reads
 * the credentials at each handshake, so after {@link NodeTls#reloadIfChanged} new connections
 * get the new certificate; connections already open keep the one they shook hands with.
 *
 * <p>One alias, {@link #ALIAS}, offered only for the key type of the node's key: the JDK asks for
 * each type its signature schemes allow, and an EC key offered for RSA would fail the handshake.
 *
 * <p>Thread safe: the credentials are an immutable record read through {@code current}.
 */
final class PeerKeyManager extends X509ExtendedKeyManager {
  static final String ALIAS = "node";

  private final Supplier<ServerCredentials> current;

  PeerKeyManager(Supplier<ServerCredentials> current) {
    this.current = current;
  }

  private @Nullable String aliasFor(@Nullable String keyType) {
    if (keyType == null) return null;
    String algorithm = current.get().key().getAlgorithm();
    // The JDK names types "EC", "RSA", "RSASSA-PSS"; TLS 1.2's older suites "EC_EC", "EC_RSA" (key, then signer).
    return keyType.equals(algorithm) || keyType.startsWith(algorithm + "_") ? ALIAS : null;
  }

  private @Nullable String aliasFor(String @Nullable [] keyTypes) {
    if (keyTypes == null) return null;
    for (String keyType : keyTypes) {
      String alias = aliasFor(keyType);
      if (alias != null) return alias;
    }
    return null;
  }

  @Override
  public String @Nullable [] getClientAliases(String keyType, Principal @Nullable [] issuers) {
    String alias = aliasFor(keyType);
    return alias == null ? null : new String[] {alias};
  }

  @Override
  public String @Nullable [] getServerAliases(String keyType, Principal @Nullable [] issuers) {
    return getClientAliases(keyType, issuers);
  }

  @Override
  public @Nullable String chooseClientAlias(String @Nullable [] keyTypes, Principal @Nullable [] issuers, @Nullable Socket socket) {
    return aliasFor(keyTypes);
  }

  @Override
  public @Nullable String chooseServerAlias(String keyType, Principal @Nullable [] issuers, @Nullable Socket socket) {
    return aliasFor(keyType);
  }

  @Override
  public @Nullable String chooseEngineClientAlias(String @Nullable [] keyTypes, Principal @Nullable [] issuers, @Nullable SSLEngine engine) {
    return aliasFor(keyTypes);
  }

  @Override
  public @Nullable String chooseEngineServerAlias(String keyType, Principal @Nullable [] issuers, @Nullable SSLEngine engine) {
    return aliasFor(keyType);
  }

  @Override
  public X509Certificate @Nullable [] getCertificateChain(String alias) {
    return ALIAS.equals(alias) ? current.get().chain().toArray(X509Certificate[]::new) : null;
  }

  @Override
  public @Nullable PrivateKey getPrivateKey(String alias) {
    return ALIAS.equals(alias) ? current.get().key() : null;
  }
}
