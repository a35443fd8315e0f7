package dev.shale.server.http;

import dev.shale.cluster.coordination.Coordinator;
import dev.shale.server.EntityResult;
import dev.shale.server.LentValueBuf;
import dev.shale.storage.Entry;
import dev.shale.storage.ReadRecord;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/**
 * The answers to {@code /v0/entity} requests: of a storage call's {@link EntityResult}, or of a
 * coordinated request's outcome. A value's answer says its version ({@link Responses#VERSION_HEADER})
 * and, if it expires, when; a 404 of a tombstone says its version and that it is one.
 */
final class EntityResponses {
  private EntityResponses() {}

  /** The answer to a storage call's result; a lent value's lease passes to the response. */
  static FullHttpResponse of(EntityResult result, HttpVersion version) {
    return switch (result.outcome()) {
      case STORED -> Responses.empty(version, HttpResponseStatus.CREATED);
      case FOUND -> withExpiry(withVersion(foundValue(result, version), result.version()), result.expiresAtMillis());
      case NOT_FOUND -> notFound(version, result.version());
      case DELETED -> Responses.empty(version, HttpResponseStatus.ACCEPTED);
      case DONE -> Responses.text(version, HttpResponseStatus.OK, new String(result.requireValue(), StandardCharsets.UTF_8));
      case OVERLOADED -> Responses.error(version, HttpResponseStatus.SERVICE_UNAVAILABLE, result.requireReason());
      case DISK_FULL -> Responses.error(version, HttpResponseStatus.INSUFFICIENT_STORAGE, result.requireReason());
      case FAILED -> Responses.error(version, HttpResponseStatus.INTERNAL_SERVER_ERROR, result.requireReason());
    };
  }

  /** The answer to a coordinated request: {@code write}, and a delete when {@code deleted}. */
  static FullHttpResponse coordinated(boolean write, boolean deleted, HttpVersion version, Coordinator.Outcome outcome) {
    String shortfall = outcome.shortfall();
    if (shortfall != null) return Responses.error(version, HttpResponseStatus.GATEWAY_TIMEOUT, shortfall);
    if (write) return Responses.empty(version, deleted ? HttpResponseStatus.ACCEPTED : HttpResponseStatus.CREATED);
    Entry newest = outcome.newest();
    if (newest == null) return notFound(version, EntityResult.NO_VERSION);
    byte[] value = newest.value(); // null: a tombstone
    if (value == null) return notFound(version, newest.version());
    return withExpiry(withVersion(Responses.value(version, value), newest.version()), newest.expiresAtMillis());
  }

  // A lent value's lease passes to the response: its buffer ends it once released.
  private static FullHttpResponse foundValue(EntityResult result, HttpVersion version) {
    ReadRecord.Lent lent = result.lent();
    if (lent == null) return Responses.value(version, result.requireValue());
    return Responses.value(version, LentValueBuf.of(lent));
  }

  /** 404; with {@code version} (not {@link EntityResult#NO_VERSION}) it says a tombstone of that version. */
  private static FullHttpResponse notFound(HttpVersion version, long recordVersion) {
    FullHttpResponse response = Responses.error(version, HttpResponseStatus.NOT_FOUND, "no value for this id");
    if (recordVersion != EntityResult.NO_VERSION) {
      withVersion(response, recordVersion).headers().set(Responses.TOMBSTONE_HEADER, Responses.TOMBSTONE);
    }
    return response;
  }

  /** Says when a value expires (epoch milliseconds), if it does. */
  private static FullHttpResponse withExpiry(FullHttpResponse response, long expiresAtMillis) {
    if (expiresAtMillis != Entry.NEVER) response.headers().set(Responses.EXPIRES_HEADER, Long.toString(expiresAtMillis));
    return response;
  }

  private static FullHttpResponse withVersion(FullHttpResponse response, long recordVersion) {
    if (recordVersion != EntityResult.NO_VERSION) {
      response.headers().set(Responses.VERSION_HEADER, Long.toString(recordVersion));
    }
    return response;
  }
}
