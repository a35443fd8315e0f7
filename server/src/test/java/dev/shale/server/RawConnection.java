package dev.shale.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * HTTP/1.1 over a plain socket, for what a polite client will not do: pipelining, malformed
 * requests, bodies that never finish. Reads responses with a Content-Length, and chunked ones
 * (scans) chunk by chunk. Every read gives up after {@link TestServer#TIMEOUT}.
 */
final class RawConnection implements AutoCloseable {
  record Response(int status, Map<String, String> headers, byte[] body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawConnection(int port) throws IOException {
    socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), (int) TestServer.TIMEOUT.toMillis());
    socket.setSoTimeout((int) TestServer.TIMEOUT.toMillis());
    socket.setTcpNoDelay(true);
    in = new java.io.BufferedInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  void send(String text) throws IOException {
    send(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  void send(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  Response read() throws IOException {
    int status = parseStatus(readLine());
    Map<String, String> headers = new TreeMap<>();
    for (String line = readLine(); !line.isEmpty(); line = readLine()) {
      int colon = line.indexOf(':');
      headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
    }
    String length = headers.get("content-length");
    byte[] body = length == null ? new byte[0] : in.readNBytes(Integer.parseInt(length));
    return new Response(status, headers, body);
  }

  /**
   * A chunked response: its chunks as sent; {@code complete} is false when the connection ended
   * before the terminating chunk (a cut answer).
   */
  record Chunked(int status, Map<String, String> headers, java.util.List<byte[]> chunks, boolean complete) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  /** Reads a response; a chunked body is kept chunk by chunk, any other as one chunk. */
  Chunked readChunked() throws IOException {
    int status = parseStatus(readLine());
    Map<String, String> headers = readHeaders();
    java.util.List<byte[]> chunks = new java.util.ArrayList<>();
    if (!"chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      String length = headers.get("content-length");
      if (length != null) chunks.add(in.readNBytes(Integer.parseInt(length)));
      return new Chunked(status, headers, chunks, true);
    }
    try {
      while (true) {
        int size = Integer.parseInt(readLine().trim(), 16);
        if (size == 0) {
          readLine(); // the empty line after the last chunk (no trailers)
          return new Chunked(status, headers, chunks, true);
        }
        byte[] chunk = in.readNBytes(size);
        if (chunk.length < size) return new Chunked(status, headers, chunks, false);
        chunks.add(chunk);
        readLine();
      }
    } catch (IOException e) {
      if (e instanceof SocketTimeoutException) throw e;
      return new Chunked(status, headers, chunks, false);
    }
  }

  InputStream input() {
    return in;
  }

  Socket socket() {
    return socket;
  }

  private Map<String, String> readHeaders() throws IOException {
    Map<String, String> headers = new TreeMap<>();
    for (String line = readLine(); !line.isEmpty(); line = readLine()) {
      int colon = line.indexOf(':');
      headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
    }
    return headers;
  }

  /** Whether the server closed the connection: reads until end of stream, or a reset. */
  boolean closedByServer() throws IOException {
    try {
      return in.read() < 0;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) {
      return true; // reset
    }
  }

  private static int parseStatus(String line) throws IOException {
    if (!line.startsWith("HTTP/1.")) throw new IOException("not a status line: " + line);
    return Integer.parseInt(line.substring(9, 12));
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) throw new IOException("connection closed mid-response");
      if (b != '\r') line.write(b);
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
