package dev.shale.app;

import dev.shale.cluster.NodeAddress;
import dev.shale.server.Reasons;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.jspecify.annotations.Nullable;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Reads a scan's answer ({@code GET /v0/entities}; README, "Range scans") entry by entry. Its
 * entries come one per chunk of the chunked body, {@code <key>\n<value>}, which an HTTP library
 * that joins the chunks (the JDK's does) cannot split again: so this speaks HTTP/1.1 over a plain
 * socket, reads the chunks itself, and tells a complete scan (its terminating chunk came) from
 * one the node cut short (the connection ended before it), which it reports as a failure.
 */
final class ScanReader {
  /** The largest chunk a scan sends: a key of 1024 bytes, the newline, a value of 256 MiB (the engine's limit). */
  static final long MAX_CHUNK_BYTES = 1024 + 1 + (256L << 20);

  private static final int MAX_LINE_BYTES = 8192;

  private ScanReader() {}

  /**
   * Sends {@code GET target} to {@code node} and hands each entry to {@code entry} (key, value)
   * as it comes; answers how many there were. A status other than 200, a connection that ends
   * before the last chunk, or no byte for {@code timeout}: an {@link AdminCallException} saying so.
   */
  static long read(NodeAddress node, String target, Duration timeout, BiConsumer<byte[], byte[]> entry) {
    return read(node, null, target, timeout, null, entry);
  }

  /**
   * As above, over TLS with {@code tls} (null: in clear), checking that the node's certificate
   * names its host, and sending the API token {@code token} (null: none).
   */
  static long read(NodeAddress node, @Nullable SSLContext tls, String target, Duration timeout, @Nullable String token,
      BiConsumer<byte[], byte[]> entry) {
    String what = "GET " + target;
    try (Socket plain = new Socket()) {
      plain.connect(new InetSocketAddress(node.host(), node.port()), (int) NodeCalls.CONNECT_TIMEOUT.toMillis());
      plain.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
      Socket socket = tls == null ? plain : handshake(tls, plain, node);
      String authorization = token == null ? "" : BearerToken.HEADER + ": " + BearerToken.value(token) + "\r\n";
      socket.getOutputStream().write((what + " HTTP/1.1\r\nHost: " + node.id() + "\r\n" + authorization + "Connection: close\r\n\r\n")
          .getBytes(StandardCharsets.UTF_8));
      InputStream in = new BufferedInputStream(socket.getInputStream(), 64 << 10);
      Head head = Head.read(in);
      if (head.status != 200) {
        byte[] body = in.readNBytes((int) Math.min(head.contentLength < 0 ? MAX_LINE_BYTES : head.contentLength, MAX_LINE_BYTES));
        throw new AdminCallException(node + " answered " + what + " with " + head.status + ": "
            + Reasons.oneLine(new String(body, StandardCharsets.UTF_8).strip()));
      }
      if (!head.chunked) throw new AdminCallException(node + " answered " + what + " without a chunked body: not a scan's answer");
      return entries(in, entry, node, what);
    } catch (ConnectException e) {
      throw new AdminCallException("cannot connect to " + node + ": connection refused (is a node running there?)", e);
    } catch (SSLHandshakeException e) {
      throw new AdminCallException(ClientTls.handshakeFailure(node, e), e);
    } catch (SocketTimeoutException e) {
      throw new AdminCallException(node + " sent nothing of " + what + " for " + timeout.toMillis() + " ms", e);
    } catch (IOException e) {
      throw new AdminCallException(what + " to " + node + " failed: " + Reasons.oneLine(String.valueOf(e.getMessage())), e);
    }
  }

  private static Socket handshake(SSLContext tls, Socket plain, NodeAddress node) throws IOException {
    SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, node.host(), node.port(), true);
    SSLParameters parameters = socket.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host, as curl checks
    socket.setSSLParameters(parameters);
    socket.startHandshake();
    return socket;
  }

  private static long entries(InputStream in, BiConsumer<byte[], byte[]> entry, NodeAddress node, String what) throws IOException {
    long count = 0;
    while (true) {
      String sizeLine = line(in, node, what, count);
      int extension = sizeLine.indexOf(';');
      long size = parseSize(extension < 0 ? sizeLine : sizeLine.substring(0, extension), node, what);
      if (size == 0) return count; // the terminating chunk: the scan is complete (trailers unread)
      byte[] chunk = in.readNBytes((int) size);
      if (chunk.length < size) throw cut(node, what, count);
      line(in, node, what, count); // the CRLF after the chunk's data
      int newline = indexOf(chunk, (byte) '\n');
      if (newline < 0) throw new AdminCallException(node + " answered " + what + " with a chunk that is no entry (no newline after its key)");
      entry.accept(Arrays.copyOfRange(chunk, 0, newline), Arrays.copyOfRange(chunk, newline + 1, chunk.length));
      count++;
    }
  }

  private static long parseSize(String hex, NodeAddress node, String what) {
    long size;
    try {
      size = Long.parseLong(hex.strip(), 16);
    } catch (NumberFormatException e) {
      throw new AdminCallException(node + " answered " + what + " with a bad chunk size: " + Reasons.oneLine(hex));
    }
    if (size < 0 || size > MAX_CHUNK_BYTES) {
      throw new AdminCallException(node + " answered " + what + " with a chunk of " + size + " bytes, larger than any entry");
    }
    return size;
  }

  private static AdminCallException cut(NodeAddress node, String what, long count) {
    return new AdminCallException(String.format(Locale.ROOT,
        "%s cut %s short after %d entries: the connection ended before the scan's end (the node's log says why)", node, what, count));
  }

  // A line of the head or of the chunk framing, without its CRLF.
  private static String line(InputStream in, NodeAddress node, String what, long count) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(32);
    for (int b; (b = in.read()) != '\n'; ) {
      if (b < 0) throw cut(node, what, count);
      if (line.size() >= MAX_LINE_BYTES) throw new AdminCallException(node + " answered " + what + " with a line over 8 KiB: not HTTP");
      if (b != '\r') line.write(b);
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) if (bytes[i] == b) return i;
    return -1;
  }

  /** The status and the framing of an answer, from its head. */
  private record Head(int status, boolean chunked, long contentLength) {
    static Head read(InputStream in) throws IOException {
      String statusLine = headLine(in);
      String[] parts = statusLine.split(" ", 3);
      if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) throw new IOException("not an HTTP answer: " + statusLine);
      int status;
      try {
        status = Integer.parseInt(parts[1]);
      } catch (NumberFormatException e) {
        throw new IOException("not an HTTP answer: " + statusLine, e);
      }
      boolean chunked = false;
      long contentLength = -1;
      for (String header; !(header = headLine(in)).isEmpty(); ) {
        int colon = header.indexOf(':');
        if (colon < 0) continue;
        String name = header.substring(0, colon).strip().toLowerCase(Locale.ROOT);
        String value = header.substring(colon + 1).strip();
        if (name.equals("transfer-encoding")) chunked = value.toLowerCase(Locale.ROOT).endsWith("chunked");
        if (name.equals("content-length")) contentLength = lengthOf(value);
      }
      return new Head(status, chunked, contentLength);
    }

    private static long lengthOf(String value) throws IOException {
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new IOException("a bad Content-Length: " + value, e);
      }
    }

    private static String headLine(InputStream in) throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream(64);
      for (int b; (b = in.read()) != '\n'; ) {
        if (b < 0) throw new IOException("the connection ended inside the answer's head");
        if (line.size() >= MAX_LINE_BYTES) throw new IOException("a line of the answer's head is over 8 KiB");
        if (b != '\r') line.write(b);
      }
      return line.toString(StandardCharsets.ISO_8859_1);
    }
  }
}
