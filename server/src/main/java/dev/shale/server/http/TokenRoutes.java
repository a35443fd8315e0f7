package dev.shale.server.http;

import dev.shale.cluster.auth.ApiToken;
import dev.shale.cluster.auth.Grant;
import dev.shale.cluster.auth.Scope;
import dev.shale.cluster.auth.TokenAuth;
import dev.shale.cluster.auth.TokenChange;
import dev.shale.cluster.auth.TokenChangeRefused;
import dev.shale.cluster.auth.TokenSecrets;
import dev.shale.cluster.auth.TokenSet;
import dev.shale.cluster.auth.Tokens;
import dev.shale.server.Reasons;
import dev.shale.server.StatusBody;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The operator's calls on the API tokens (README, "API tokens"), under {@code /v0/admin} so
 * they need the admin scope (or the admin signature):
 * <pre>
 *   GET    /v0/admin/tokens                                         every token: name, scopes, prefixes, created (never a secret)
 *   POST   /v0/admin/tokens?name=N&amp;scope=read,write[&amp;prefix=P]...  adds N: 201 with its secret, shown this once
 *   DELETE /v0/admin/tokens?name=N                                  revokes N
 * </pre>
 * 409 when the set refuses a change (a name taken, no such token), 503 when a cluster's members
 * could not agree (retry), 400 for a malformed request. A change is answered once this node
 * applied it; the other members apply it as Raft commits it to them (within a heartbeat).
 */
final class TokenRoutes {
  static final String TOKENS_PATH = "/v0/admin/tokens";

  private final Tokens tokens;
  private final TokenAuth auth;
  private final LongSupplier wallMillis;
  private final SecureRandom random = new SecureRandom();
  private final int maxIdBytes;

  TokenRoutes(TokenAuth auth, LongSupplier wallMillis, int maxIdBytes) {
    this.auth = auth;
    this.tokens = auth.tokens();
    this.wallMillis = wallMillis;
    this.maxIdBytes = maxIdBytes;
  }

  CompletableFuture<FullHttpResponse> answer(HttpRequest head, @Nullable String query) {
    HttpVersion version = head.protocolVersion();
    HttpMethod method = head.method();
    try {
      if (HttpMethod.GET.equals(method)) return done(Responses.json(version, HttpResponseStatus.OK, list(tokens.current(), auth.required())));
      if (HttpMethod.POST.equals(method)) return add(version, query);
      if (HttpMethod.DELETE.equals(method)) {
        String name = required(query, "name");
        return changed(version, tokens.change(new TokenChange.Revoke(name)), HttpResponseStatus.OK,
            set -> "{\"revoked\": " + StatusBody.quote(name) + "}");
      }
      return done(Responses.methodNotAllowed(version, method.name(), "GET, POST, DELETE"));
    } catch (InvalidRequestException | IllegalArgumentException e) {
      return done(Responses.error(version, HttpResponseStatus.BAD_REQUEST, Reasons.oneLine(e.getMessage())));
    }
  }

  private CompletableFuture<FullHttpResponse> add(HttpVersion version, @Nullable String query) throws InvalidRequestException {
    String name = required(query, "name");
    if (name.equals(TokenAuth.BOOTSTRAP_NAME)) throw new InvalidRequestException(name + " is the bootstrap admin token's name");
    Grant grant = new Grant(Scope.parse(required(query, "scope")), prefixes(query));
    String secret = TokenSecrets.newSecret(random);
    ApiToken token = new ApiToken(name, TokenSecrets.hash(secret), grant, wallMillis.getAsLong());
    // The answer is the one place the secret is ever shown: the node keeps only its hash.
    return changed(version, tokens.change(new TokenChange.Add(token)), HttpResponseStatus.CREATED,
        set -> "{\"name\": " + StatusBody.quote(name) + ", \"secret\": " + StatusBody.quote(secret) + ", \"scopes\": "
            + scopes(token) + ", \"prefixes\": " + prefixesJson(token) + ", \"created\": " + token.createdMillis() + "}");
  }

  private static CompletableFuture<FullHttpResponse> changed(HttpVersion version, CompletableFuture<TokenSet> change,
      HttpResponseStatus status, java.util.function.Function<TokenSet, String> body) {
    return change.handle((set, failure) -> {
      if (failure == null) return Responses.json(version, status, body.apply(set));
      Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
      HttpResponseStatus refused = cause instanceof TokenChangeRefused ? HttpResponseStatus.CONFLICT : HttpResponseStatus.SERVICE_UNAVAILABLE;
      return Responses.error(version, refused, Reasons.oneLine(String.valueOf(cause.getMessage())));
    });
  }

  /** The set as JSON; {@code required}: whether this node requires tokens now. */
  static String list(TokenSet set, boolean required) {
    StringBuilder json = new StringBuilder("{\"version\": ").append(set.version()).append(", \"required\": ")
        .append(required).append(", \"tokens\": [");
    for (ApiToken token : set.tokens()) {
      if (json.charAt(json.length() - 1) != '[') json.append(", ");
      json.append("{\"name\": ").append(StatusBody.quote(token.name())).append(", \"scopes\": ").append(scopes(token))
          .append(", \"prefixes\": ").append(prefixesJson(token)).append(", \"created\": ").append(token.createdMillis()).append('}');
    }
    return json.append("]}").toString();
  }

  private static String scopes(ApiToken token) {
    List<String> words = token.scopes().stream().sorted().map(s -> StatusBody.quote(s.word())).toList();
    return "[" + String.join(", ", words) + "]";
  }

  // Prefixes as they are given: percent-encoded as in a query (QueryParams.encode), so any bytes show.
  private static String prefixesJson(ApiToken token) {
    List<String> words = token.grant().prefixes().stream().map(p -> StatusBody.quote(QueryParams.encode(p))).toList();
    return "[" + String.join(", ", words) + "]";
  }

  /** Every {@code prefix=} parameter's bytes, decoded as an entity's id is. */
  private List<byte[]> prefixes(@Nullable String query) throws InvalidRequestException {
    List<byte[]> prefixes = new ArrayList<>();
    if (query == null) return prefixes;
    int start = 0;
    while (start <= query.length()) {
      int end = query.indexOf('&', start);
      if (end < 0) end = query.length();
      if (query.startsWith("prefix=", start) && start + "prefix=".length() <= end) {
        byte[] prefix = IdDecoder.percentDecode(query, start + "prefix=".length(), end);
        if (prefix.length == 0) throw new InvalidRequestException("a prefix must not be empty (leave it out for every key)");
        if (prefix.length > maxIdBytes) throw new InvalidRequestException("a prefix is at most " + maxIdBytes + " bytes");
        prefixes.add(prefix);
      }
      start = end + 1;
    }
    return prefixes;
  }

  private static String required(@Nullable String query, String name) throws InvalidRequestException {
    String value = QueryParams.value(query, name);
    if (value == null || value.isEmpty()) throw new InvalidRequestException("missing query parameter " + name);
    return value;
  }

  private static CompletableFuture<FullHttpResponse> done(FullHttpResponse response) {
    return CompletableFuture.completedFuture(response);
  }
}
