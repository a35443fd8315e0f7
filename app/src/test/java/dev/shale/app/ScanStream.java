package dev.shale.app;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A scan ({@code GET /v0/entities}) read chunk by chunk from a plain socket, so that a test sees
 * each entry (one per chunk: {@code <key>\n<value>}) and whether the answer ended with its
 * terminating chunk (complete) or the connection ended before it (cut). The socket's receive
 * buffer is small, so a reader that pauses stops the node soon.
 */
final class ScanStream implements AutoCloseable {
  /** One entry of the scan. */
  record Entry(String key, byte[] value) {}

  private static final int RECEIVE_BUFFER_BYTES = 32 << 10;

  private final Socket socket;
  private final InputStream in;
  private final int status;
  private boolean complete;

  private ScanStream(Socket socket, InputStream in, int status) {
    this.socket = socket;
    this.in = in;
    this.status = status;
  }

  /** Sends {@code GET <baseUrl>/v0/entities?<query>} and reads the status line and headers. */
  static ScanStream open(String baseUrl, String query, int readTimeoutMillis) throws IOException {
    URI uri = URI.create(baseUrl);
    Socket socket = new Socket();
    try {
      socket.setReceiveBufferSize(RECEIVE_BUFFER_BYTES);
      socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5_000);
      socket.setSoTimeout(readTimeoutMillis);
      socket.getOutputStream().write(("GET /v0/entities?" + query + " HTTP/1.1\r\nHost: " + uri.getHost()
          + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      InputStream in = new BufferedInputStream(socket.getInputStream());
      String statusLine = line(in);
      int status = Integer.parseInt(statusLine.split(" ")[1]);
      while (!line(in).isEmpty()) {
        // The headers: a scan's 200 is chunked (README, "Range scans").
      }
      return new ScanStream(socket, in, status);
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  int status() {
    return status;
  }

  /**
   * The next entry, or null once the terminating chunk came ({@link #complete()} is then true).
   *
   * @throws IOException when the connection ends or fails before the terminating chunk: the scan was cut
   */
  Entry next() throws IOException {
    int size = Integer.parseInt(line(in).trim(), 16);
    if (size == 0) {
      line(in); // the empty line after the last chunk
      complete = true;
      return null;
    }
    byte[] chunk = in.readNBytes(size);
    if (chunk.length < size) throw new IOException("the connection ended inside a chunk");
    line(in);
    int newline = indexOf(chunk, (byte) '\n');
    if (newline < 0) throw new IOException("a chunk without the newline after its key");
    return new Entry(new String(chunk, 0, newline, StandardCharsets.UTF_8), Arrays.copyOfRange(chunk, newline + 1, chunk.length));
  }

  /** Whether the terminating chunk came. */
  boolean complete() {
    return complete;
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b; (b = in.read()) != '\n'; ) {
      if (b < 0) throw new IOException("the connection ended before the terminating chunk");
      if (b != '\r') line.write(b);
    }
    return line.toString(StandardCharsets.US_ASCII);
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) if (bytes[i] == b) return i;
    return -1;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
