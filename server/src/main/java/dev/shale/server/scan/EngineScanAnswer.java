package dev.shale.server.scan;

import dev.shale.server.http.Responses;
import dev.shale.server.http.StreamingAnswer;
import dev.shale.storage.Entry;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A client's local scan ({@code GET /v0/entities}): this node's live entries of a range, pulled by
 * an {@link EngineScan} and written as the chunks of a 200 ({@link ScanChunks}).
 *
 * <p>The status line goes out with the first batch, so a scan that fails before any record
 * (or finds the server at its scan limit) gets a plain 500 (503). A failure after that cannot
 * change the status: the connection is closed without the terminating chunk, which a client
 * sees as a cut body, never as a complete one.
 *
 * <p>Confined to the channel's event loop.
 */
final class EngineScanAnswer implements StreamingAnswer, ScanSink {
  private final EngineScan scan;
  private final HttpVersion version;
  private @Nullable ChannelHandlerContext ctx;
  private boolean keepAlive;
  private @Nullable Runnable ended;
  private int status = 200; // until an error answers instead (statusCode)

  EngineScanAnswer(EngineScan scan, HttpVersion version) {
    this.scan = scan;
    this.version = version;
  }

  @Override
  public void start(ChannelHandlerContext ctx, boolean keepAlive, Runnable ended) {
    this.ctx = ctx;
    this.keepAlive = keepAlive;
    this.ended = ended;
    scan.start(ctx, this);
  }

  @Override
  public void writabilityChanged() {
    scan.writabilityChanged();
  }

  @Override
  public void discard() {
    scan.discard();
  }

  @Override
  public void write(List<Entry> records, boolean first) {
    if (first) ctx().write(ScanChunks.head(version, keepAlive), ctx().voidPromise());
    ScanChunks.write(ctx(), records);
  }

  @Override
  public void end() {
    var done = ctx().writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
    if (!keepAlive) done.addListener(ChannelFutureListener.CLOSE);
    ended().run();
  }

  @Override
  public void busy(String reason) {
    answerWhole(Responses.error(version, HttpResponseStatus.SERVICE_UNAVAILABLE, reason));
  }

  @Override
  public void fail(String reason, boolean began) {
    if (!began) {
      answerWhole(Responses.error(version, HttpResponseStatus.INTERNAL_SERVER_ERROR, "scan failed: " + reason));
      return;
    }
    // The status was 200 already: cutting the connection before the terminating chunk is the
    // only way left to tell the client that the body is not whole.
    ctx().close();
    ended().run();
  }

  @Override
  public int statusCode() {
    return status;
  }

  private void answerWhole(FullHttpResponse response) {
    status = response.status().code();
    HttpUtil.setKeepAlive(response, keepAlive);
    var written = ctx().writeAndFlush(response);
    if (!keepAlive) written.addListener(ChannelFutureListener.CLOSE);
    ended().run();
  }

  private ChannelHandlerContext ctx() {
    return Objects.requireNonNull(ctx, "start() comes first");
  }

  private Runnable ended() {
    return Objects.requireNonNull(ended, "start() comes first");
  }
}
