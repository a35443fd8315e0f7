package dev.shale.server.http;

import dev.shale.server.Reasons;
import dev.shale.server.StatusBody;
import dev.shale.storage.Checkpoint;
import dev.shale.storage.CpuPriority;
import dev.shale.storage.Engine;
import dev.shale.storage.Env;
import dev.shale.storage.StorageException;
import dev.shale.storage.Vfs;
import dev.shale.storage.WriteStallException;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The snapshot routes (docs/operations.md, "Snapshots"): {@code POST /v0/admin/snapshot[?name=N]}
 * makes a checkpoint of the store ({@link Engine#checkpoint}) under {@code <data>/snapshots/N},
 * {@code GET /v0/admin/snapshots} lists them, {@code DELETE /v0/admin/snapshot?name=N} deletes
 * one. Each call runs on a thread of its own, off the event loop and the storage pool (a
 * snapshot flushes the memtables and fsyncs); calls are serialized, so two creates of one name
 * cannot both pass the "exists" check.
 *
 * <p>Thread safe.
 */
public final class SnapshotRoutes {
  static final String SNAPSHOT_PATH = "/v0/admin/snapshot";
  static final String SNAPSHOTS_PATH = "/v0/admin/snapshots";
  /** Names: letters, digits, '.', '_' and '-', 1 to 64, not starting with '.' (hidden: a snapshot being made). */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}");

  private static final System.Logger LOG = System.getLogger(SnapshotRoutes.class.getName());
  private static final DateTimeFormatter DEFAULT_NAME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'");

  private final Engine engine;
  private final Path directory;
  private final Env env; // the node's: the snapshot threads, the default name's time, the files
  private final Vfs vfs;
  private final Executor threads;

  /** Snapshots of {@code engine} in {@code directory} ({@code <data>/snapshots}), through {@code env}. */
  public SnapshotRoutes(Engine engine, Path directory, Env env) {
    this.engine = engine;
    this.env = env;
    this.vfs = env.vfs();
    // supplyAsync hands a call's exception to its future: only a bug in that machinery ends up here.
    this.threads = work -> env.startDaemon("shale-snapshot", CpuPriority.NORMAL,
        (thread, e) -> LOG.log(Level.ERROR, "snapshot thread died", e), work);
    // Normalized: the path the answers give is one an operator copies from; --data ./data would
    // otherwise make it /srv/shale/./data/snapshots/<name>.
    this.directory = directory.toAbsolutePath().normalize();
  }

  /** The answer to a snapshot route's request, once done. */
  CompletableFuture<FullHttpResponse> answer(HttpRequest head, RequestTarget target) {
    HttpVersion version = head.protocolVersion();
    HttpMethod method = head.method();
    if (target.path().equals(SNAPSHOTS_PATH)) {
      if (!HttpMethod.GET.equals(method)) return done(Responses.methodNotAllowed(version, method.name(), "GET"));
      return CompletableFuture.supplyAsync(() -> serialized(() -> list(version)), threads);
    }
    boolean create = HttpMethod.POST.equals(method);
    if (!create && !HttpMethod.DELETE.equals(method)) {
      return done(Responses.methodNotAllowed(version, method.name(), "POST, DELETE"));
    }
    String name;
    try {
      name = QueryParams.value(target.query(), "name");
    } catch (InvalidRequestException e) {
      return done(Responses.error(version, HttpResponseStatus.BAD_REQUEST, Reasons.oneLine(e.getMessage())));
    }
    if (name == null) {
      if (!create) return done(Responses.error(version, HttpResponseStatus.BAD_REQUEST, "DELETE " + SNAPSHOT_PATH + " needs ?name=<snapshot>"));
      name = DEFAULT_NAME.format(ZonedDateTime.ofInstant(Instant.ofEpochMilli(env.wallMillis()), ZoneOffset.UTC));
    }
    if (!NAME.matcher(name).matches()) {
      return done(Responses.error(version, HttpResponseStatus.BAD_REQUEST, "bad snapshot name " + StatusBody.quote(name)
          + ": 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'"));
    }
    String chosen = name;
    return CompletableFuture.supplyAsync(() -> serialized(() -> create ? create(version, chosen) : delete(version, chosen)), threads);
  }

  private synchronized FullHttpResponse serialized(Supplier<FullHttpResponse> work) {
    try {
      return work.get();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "snapshot call failed: " + e);
      return Responses.error(HttpVersion.HTTP_1_1, HttpResponseStatus.INTERNAL_SERVER_ERROR, Reasons.oneLine(String.valueOf(e.getMessage())));
    }
  }

  private FullHttpResponse create(HttpVersion version, String name) {
    Path target = directory.resolve(name);
    if (vfs.exists(target)) {
      return Responses.error(version, HttpResponseStatus.CONFLICT, "snapshot " + name + " exists already: " + target);
    }
    Checkpoint made;
    try {
      made = engine.checkpoint(target);
    } catch (WriteStallException e) {
      // Its flush could not freeze the memtable in time: overloaded, as a write would be told.
      return Responses.error(version, HttpResponseStatus.SERVICE_UNAVAILABLE, Reasons.oneLine(e.getMessage()));
    } catch (StorageException e) {
      return Responses.error(version, HttpResponseStatus.INTERNAL_SERVER_ERROR, Reasons.oneLine(e.getMessage()));
    }
    return Responses.json(version, HttpResponseStatus.OK, json(name, made.path(), made.tables(), made.bytes()));
  }

  private FullHttpResponse list(HttpVersion version) {
    List<String> snapshots = new ArrayList<>();
    try {
      for (Path dir : vfs.list(directory).stream().sorted().toList()) {
        String name = dir.getFileName().toString();
        if (!vfs.isDirectory(dir) || !NAME.matcher(name).matches()) continue; // hidden: being made
        long tables = 0;
        long bytes = 0;
        for (Path file : files(dir)) {
          if (!file.getFileName().toString().endsWith(".sst")) continue;
          tables++;
          bytes += vfs.size(file);
        }
        snapshots.add(json(name, dir, tables, bytes));
      }
    } catch (NoSuchFileException e) {
      // No snapshot made yet.
    } catch (IOException e) {
      return Responses.error(version, HttpResponseStatus.INTERNAL_SERVER_ERROR, "listing " + directory + " failed: " + Reasons.oneLine(e.toString()));
    }
    return Responses.json(version, HttpResponseStatus.OK, "{\"snapshots\": [" + String.join(", ", snapshots) + "]}");
  }

  private FullHttpResponse delete(HttpVersion version, String name) {
    Path target = directory.resolve(name);
    if (!vfs.isDirectory(target)) {
      return Responses.error(version, HttpResponseStatus.NOT_FOUND, "no snapshot " + name + " in " + directory);
    }
    try {
      // A snapshot holds files only (tables, a manifest).
      for (Path file : files(target)) vfs.delete(file);
      vfs.delete(target);
    } catch (IOException e) {
      return Responses.error(version, HttpResponseStatus.INTERNAL_SERVER_ERROR, "deleting " + target + " failed: " + Reasons.oneLine(e.toString()));
    }
    LOG.log(Level.INFO, "snapshot " + target + " deleted");
    return Responses.json(version, HttpResponseStatus.OK, "{\"deleted\": " + StatusBody.quote(name) + "}");
  }

  private List<Path> files(Path dir) throws IOException {
    return vfs.list(dir);
  }

  private static String json(String name, Path path, long tables, long bytes) {
    return "{\"name\": " + StatusBody.quote(name) + ", \"path\": " + StatusBody.quote(path.toString())
        + ", \"tables\": " + tables + ", \"bytes\": " + bytes + "}";
  }

  private static CompletableFuture<FullHttpResponse> done(FullHttpResponse response) {
    return CompletableFuture.completedFuture(response);
  }
}
