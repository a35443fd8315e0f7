package dev.shale.testkit.netns;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy that forwards each connection it accepts to one target and delays the bytes of both
 * directions as its {@link LinkDelay} says. Each direction reads chunks into a bounded queue
 * (at most {@link #QUEUED_CHUNKS} chunks of {@link #CHUNK_BYTES}: past that it stops reading and
 * TCP pushes back) and writes each out once its time came; an end of stream is passed on as a
 * half close after the bytes before it, an error closes both sides. Threads are virtual: two per
 * direction of each connection.
 */
final class DelayProxy implements AutoCloseable {
  private static final int CHUNK_BYTES = 16 << 10;
  private static final int QUEUED_CHUNKS = 64;
  private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final LinkDelay delay;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();

  private DelayProxy(ServerSocket listener, InetSocketAddress target, LinkDelay delay) {
    this.listener = listener;
    this.target = target;
    this.delay = delay;
  }

  /** Listens on {@code host} (a free port) and forwards to {@code target}. */
  static DelayProxy start(String host, InetSocketAddress target, LinkDelay delay) throws IOException {
    ServerSocket listener = new ServerSocket();
    listener.bind(new InetSocketAddress(host, 0));
    DelayProxy proxy = new DelayProxy(listener, target, delay);
    Thread.ofVirtual().name("delay-proxy-accept-" + target).start(proxy::acceptLoop);
    return proxy;
  }

  int port() {
    return listener.getLocalPort();
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Thread.ofVirtual().start(() -> connect(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void connect(Socket client) {
    Socket server = new Socket();
    open.add(client);
    open.add(server);
    try {
      server.connect(target, CONNECT_TIMEOUT_MILLIS);
    } catch (IOException e) {
      closeBoth(client, server);
      return;
    }
    AtomicInteger directionsEnded = new AtomicInteger();
    pipe(client, server, directionsEnded);
    pipe(server, client, directionsEnded);
  }

  /** A chunk of bytes read, and when it may go out; an empty chunk is the end of the stream. */
  private record Chunk(byte[] bytes, long dueNanos) {}

  /** Starts one direction: {@code from}'s input, delayed, to {@code to}'s output. */
  private void pipe(Socket from, Socket to, AtomicInteger directionsEnded) {
    BlockingQueue<Chunk> chunks = new ArrayBlockingQueue<>(QUEUED_CHUNKS);
    Thread.ofVirtual().start(() -> read(from, to, chunks));
    Thread.ofVirtual().start(() -> write(from, to, chunks, directionsEnded));
  }

  private void read(Socket from, Socket to, BlockingQueue<Chunk> chunks) {
    byte[] buffer = new byte[CHUNK_BYTES];
    try {
      InputStream in = from.getInputStream();
      for (int n; (n = in.read(buffer)) >= 0; ) {
        if (n > 0) chunks.put(new Chunk(Arrays.copyOf(buffer, n), delay.dueNanos()));
      }
      chunks.put(new Chunk(new byte[0], delay.dueNanos()));
    } catch (IOException | InterruptedException e) {
      closeBoth(from, to);
    }
  }

  private void write(Socket from, Socket to, BlockingQueue<Chunk> chunks, AtomicInteger directionsEnded) {
    try {
      OutputStream out = to.getOutputStream();
      while (true) {
        Chunk chunk = chunks.take();
        delay.awaitTurn(chunk.dueNanos());
        try {
          if (chunk.bytes().length == 0) {
            to.shutdownOutput();
            if (directionsEnded.incrementAndGet() == 2) closeBoth(from, to);
            return;
          }
          out.write(chunk.bytes());
          out.flush();
        } finally {
          delay.wrote(chunk.bytes().length);
        }
      }
    } catch (IOException | InterruptedException e) {
      closeBoth(from, to);
    }
  }

  private void closeBoth(Socket a, Socket b) {
    close(a);
    close(b);
  }

  private void close(Socket socket) {
    open.remove(socket);
    try {
      socket.close();
    } catch (IOException ignored) {
      // Closing is all that is left to do with it.
    }
  }

  /** Stops accepting and cuts every connection. */
  @Override
  public void close() {
    try {
      listener.close();
    } catch (IOException ignored) {
      // Nothing more to release.
    }
    for (Socket socket : open) close(socket);
  }
}
