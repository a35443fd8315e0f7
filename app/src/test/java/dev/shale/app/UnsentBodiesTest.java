package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that each send a large PUT body must not take a small node's memory: the node's default
 * body budget follows its heap, and bodies past it get 503 instead of an OutOfMemoryError. (Issue
 * 13, item 3: the fixed 256 MiB default was the whole heap of a `./shale cluster` node.) In CI a
 * run counted each 16 MiB body once while it was held twice (its blocks, then the array they are
 * joined into): the flush thread died of an OutOfMemoryError and the last PUT stalled past its
 * client's timeout. A large body now counts twice until it is whole (BodyLimitTest), and an engine
 * whose background thread dies refuses writes at once (BackgroundThreadDeathTest).
 */
class UnsentBodiesTest {
  private static final int VALUE_BYTES = 16 << 20;
  private static final int CONNECTIONS = 12;
  private static final int TIMEOUT_MILLIS = 60_000;

  @Test
  void largeBodiesPastASmallHeapsShareAreRefusedNotAllocated(@TempDir Path tmp) throws Exception {
    try (NodeProcess node = NodeProcess.start(FreePort.find(), tmp.resolve("data"), List.of("-Xmx128m"), List.of())
        .awaitReady(Duration.ofSeconds(60))) {
      List<Socket> sockets = new ArrayList<>();
      ExecutorService senders = Executors.newFixedThreadPool(CONNECTIONS);
      List<Integer> statuses = new ArrayList<>();
      try {
        // Every head is in before any body: 12 x 16 MiB announced to a 128 MiB heap.
        for (int c = 0; c < CONNECTIONS; c++) sockets.add(announce(node.port(), "body-" + c));
        List<Future<Integer>> answers = new ArrayList<>();
        for (Socket socket : sockets) answers.add(senders.submit(() -> sendBodyAndRead(socket)));
        for (Future<Integer> answer : answers) statuses.add(answer.get());
      } finally {
        senders.shutdownNow();
        for (Socket socket : sockets) socket.close();
      }
      assertThat(statuses).as("every body stored or refused for want of room").allMatch(s -> s == 201 || s == 503);
      assertThat(statuses).as("the budget holds at least one value").contains(201);
      EntityClient client = new EntityClient(node.baseUrl());
      assertThat(client.put("after", "fine".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
      assertThat(node.log()).doesNotContain("OutOfMemoryError");
      assertThat(node.terminate(Duration.ofSeconds(10))).isZero();
    }
  }

  private static Socket announce(int port, String key) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MILLIS);
    socket.setSoTimeout(TIMEOUT_MILLIS); // a hung connection fails the test
    String head = "PUT /v0/entity?id=" + key + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + VALUE_BYTES + "\r\n\r\n";
    socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
    return socket;
  }

  /** Sends the announced body (unless the node stopped reading) and returns the answer's status. */
  private static int sendBodyAndRead(Socket socket) throws IOException {
    OutputStream out = socket.getOutputStream();
    byte[] chunk = new byte[1 << 20];
    try {
      for (int sent = 0; sent < VALUE_BYTES; sent += chunk.length) out.write(chunk);
      out.flush();
    } catch (IOException e) {
      // A node that answered and closed may reset the rest of the body; its answer is still read.
    }
    return status(socket.getInputStream());
  }

  private static int status(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) throw new IOException("the connection ended before an answer");
      if (b != '\r') line.write(b);
    }
    String statusLine = line.toString(StandardCharsets.US_ASCII);
    if (!statusLine.startsWith("HTTP/1.1 ")) throw new IOException("not a status line: " + statusLine);
    return Integer.parseInt(statusLine.substring(9, 12));
  }
}
