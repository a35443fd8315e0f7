package dev.shale.server;

import dev.shale.server.http.RequestAggregator;
import dev.shale.storage.Engine;

/**
 * Settings of a {@link ShaleServer}. Immutable; change one with the {@code with...} methods.
 *
 * @param host the address to listen on
 * @param port the TCP port to listen on; 0 picks a free one (see {@link ShaleServer#port()})
 * @param ioThreads event-loop threads that parse HTTP and write responses; 0: one per CPU core
 * @param workers threads that run storage calls; 0: run them inline on the event loop
 * @param queueSize storage calls waiting for a worker; past it requests get 503 at once
 * @param maxValueSizeBytes the largest request body (value) accepted; larger gets 413
 * @param inflightBodyBytes bytes of request bodies held in memory by the whole server at once;
 *     a body that does not fit gets 503. 0: {@link #DEFAULT_BODY_HEAP_FRACTION} of the heap, at
 *     most {@link #DEFAULT_BODY_BUDGET_CAP_BYTES} ({@link #bodyBudgetBytes})
 * @param inflightAnswerBytes bytes of answers (values read, copied to the heap or lent from the
 *     engine's native memory) held by the whole server at once, from before the read until the
 *     answer's write completes; a read that does not
 *     fit waits for earlier answers to be written. 0: {@link #DEFAULT_ANSWER_HEAP_FRACTION} of
 *     the heap ({@link #answerBudgetBytes})
 * @param maxPipelinedRequests requests of one connection received but not yet answered; past
 *     it the server stops reading that connection until it has answered some
 * @param idleTimeoutMillis a connection that sends and receives nothing for this long, while it
 *     is owed no response, is closed
 * @param requestTimeoutMillis the longest time one request (head and body) may take to arrive,
 *     from its first byte to its last; a slower one gets 408 and the connection is closed
 * @param shutdownTimeoutMillis on close, the longest wait for in-flight requests to be answered
 *     before the remaining connections are cut
 * @param maxScans range scans (a client's, a peer's for a cluster scan or a repair) the node streams
 *     at once; past it a scan gets 503. Each holds a read-ahead window per table source
 * @param memoryBytes the node's memory budget ({@code --memory}) the other settings were sized
 *     from, shown by {@code /v0/status} and {@code /metrics}; 0: none
 * @param metrics whether the node keeps its Prometheus metrics ({@code GET /metrics}); off, no
 *     request is timed and {@code /metrics} answers 404
 */
public record ServerOptions(
    String host,
    int port,
    int ioThreads,
    int workers,
    int queueSize,
    int maxValueSizeBytes,
    long inflightBodyBytes,
    long inflightAnswerBytes,
    int maxPipelinedRequests,
    long idleTimeoutMillis,
    long requestTimeoutMillis,
    long shutdownTimeoutMillis,
    int maxScans,
    long memoryBytes,
    boolean metrics) {

  /** Range scans streamed at once by default (a node under a memory budget may allow fewer). */
  public static final int DEFAULT_MAX_SCANS = 256;

  /** The largest value the server can be configured to accept: the engine's limit (256 MiB). */
  public static final int MAX_VALUE_SIZE_LIMIT_BYTES = Engine.MAX_VALUE_BYTES;

  /**
   * The part of the heap answers may hold when {@code inflightAnswerBytes} is 0: a quarter,
   * which leaves the rest to memtables, request bodies, the engine's caches and Netty. Netty
   * writes a heap value through a direct copy, and the JVM's direct memory defaults to the heap's
   * size, so the same bound keeps the direct copies within it too.
   */
  public static final double DEFAULT_ANSWER_HEAP_FRACTION = 0.25;

  /**
   * The part of the heap request bodies may hold when {@code inflightBodyBytes} is 0: a quarter,
   * as for answers, so that bodies and answers together leave half the heap to the rest; and at
   * most {@link #DEFAULT_BODY_BUDGET_CAP_BYTES}, which keeps a large heap's budget what it was.
   */
  public static final double DEFAULT_BODY_HEAP_FRACTION = 0.25;

  /** The default body budget's ceiling: 256 MiB, the fixed default before it followed the heap. */
  public static final long DEFAULT_BODY_BUDGET_CAP_BYTES = 256L << 20;

  public ServerOptions {
    if (host == null || host.isBlank()) throw new IllegalArgumentException("host must not be empty");
    if (port < 0 || port > 65535) throw new IllegalArgumentException("port must be in [0, 65535]: " + port);
    if (ioThreads < 0) throw new IllegalArgumentException("ioThreads must be >= 0: " + ioThreads);
    if (workers < 0) throw new IllegalArgumentException("workers must be >= 0: " + workers);
    if (queueSize < 0) throw new IllegalArgumentException("queueSize must be >= 0: " + queueSize);
    if (maxValueSizeBytes < 0 || maxValueSizeBytes > MAX_VALUE_SIZE_LIMIT_BYTES) {
      throw new IllegalArgumentException(
          "maxValueSizeBytes must be in [0, " + MAX_VALUE_SIZE_LIMIT_BYTES + "]: " + maxValueSizeBytes);
    }
    // 0 is the heap-derived default; otherwise a body of the largest allowed size must fit, or
    // such a value could never be stored.
    if (inflightBodyBytes != 0 && inflightBodyBytes < largestBodyCost(maxValueSizeBytes)) {
      throw new IllegalArgumentException("inflightBodyBytes (" + inflightBodyBytes
          + ") must be 0 (from the heap) or >= twice maxValueSizeBytes (" + maxValueSizeBytes
          + "): a large body is held twice while it is joined");
    }
    // 0 is the heap-derived default; otherwise a value of the largest allowed size must fit.
    if (inflightAnswerBytes != 0 && inflightAnswerBytes < maxValueSizeBytes) {
      throw new IllegalArgumentException("inflightAnswerBytes (" + inflightAnswerBytes
          + ") must be 0 (from the heap) or >= maxValueSizeBytes (" + maxValueSizeBytes + ")");
    }
    if (maxPipelinedRequests < 1) throw new IllegalArgumentException("maxPipelinedRequests must be >= 1: " + maxPipelinedRequests);
    if (idleTimeoutMillis <= 0) throw new IllegalArgumentException("idleTimeoutMillis must be > 0: " + idleTimeoutMillis);
    if (requestTimeoutMillis <= 0) throw new IllegalArgumentException("requestTimeoutMillis must be > 0: " + requestTimeoutMillis);
    if (shutdownTimeoutMillis < 0) throw new IllegalArgumentException("shutdownTimeoutMillis must be >= 0: " + shutdownTimeoutMillis);
    if (maxScans < 1) throw new IllegalArgumentException("maxScans must be >= 1: " + maxScans);
    if (memoryBytes < 0) throw new IllegalArgumentException("memoryBytes must be >= 0: " + memoryBytes);
  }

  public static ServerOptions defaults() {
    return new ServerOptions(
        "127.0.0.1", 8080, 0, 16, 1024, 16 << 20, 0, 0, 16, 60_000, 30_000, 5_000, DEFAULT_MAX_SCANS, 0, true);
  }

  /**
   * The answer budget in bytes: {@code inflightAnswerBytes}, or when it is 0 the default part of
   * {@code maxHeapBytes} (the JVM's {@link Runtime#maxMemory}), but at least one value of
   * {@code maxValueSizeBytes} (a smaller heap than that cannot serve such a value anyway).
   */
  public long answerBudgetBytes(long maxHeapBytes) {
    if (inflightAnswerBytes != 0) return inflightAnswerBytes;
    return atLeastOneValue((long) (maxHeapBytes * DEFAULT_ANSWER_HEAP_FRACTION));
  }

  /**
   * The body budget in bytes: {@code inflightBodyBytes}, or when it is 0 the default part of
   * {@code maxHeapBytes}, capped at {@link #DEFAULT_BODY_BUDGET_CAP_BYTES}, but at least what
   * the body of one value of {@code maxValueSizeBytes} reserves (twice its size).
   */
  public long bodyBudgetBytes(long maxHeapBytes) {
    if (inflightBodyBytes != 0) return inflightBodyBytes;
    long fromHeap = Math.min(DEFAULT_BODY_BUDGET_CAP_BYTES, (long) (maxHeapBytes * DEFAULT_BODY_HEAP_FRACTION));
    return Math.max(largestBodyCost(maxValueSizeBytes), fromHeap);
  }

  /**
   * What the body of a value of {@code maxValueSizeBytes} reserves at most: twice its size when
   * it is gathered in blocks and joined ({@link RequestAggregator#JOINED_BODY_COST}); at least 1.
   */
  private static long largestBodyCost(int maxValueSizeBytes) {
    return Math.max(1, (long) RequestAggregator.JOINED_BODY_COST * maxValueSizeBytes);
  }

  // A budget smaller than one value could never serve a value of the largest allowed size.
  private long atLeastOneValue(long budgetBytes) {
    return Math.max(Math.max(1, maxValueSizeBytes), budgetBytes);
  }

  public ServerOptions withHost(String v) {
    return new ServerOptions(v, port, ioThreads, workers, queueSize, maxValueSizeBytes, inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis, shutdownTimeoutMillis, maxScans, memoryBytes, metrics);
  }

  public ServerOptions withPort(int v) {
    return new ServerOptions(host, v, ioThreads, workers, queueSize, maxValueSizeBytes, inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis, shutdownTimeoutMillis, maxScans, memoryBytes, metrics);
  }

  public ServerOptions withIoThreads(int v) {
    return new ServerOptions(host, port, v, workers, queueSize, maxValueSizeBytes, inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis, shutdownTimeoutMillis, maxScans, memoryBytes, metrics);
  }

  public ServerOptions withWorkers(int v) {
    return new ServerOptions(host, port, ioThreads, v, queueSize, maxValueSizeBytes, inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis, shutdownTimeoutMillis, maxScans, memoryBytes, metrics);
  }

  public ServerOptions withQueueSize(int v) {
    return new ServerOptions(host, port, ioThreads, workers, v, maxValueSizeBytes, inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis, shutdownTimeoutMillis, maxScans, memoryBytes, metrics);
  }

  public ServerOptions withMaxValueSizeBytes(int v) {
    return new ServerOptions(host, port, ioThreads, workers, queueSize, v, inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis, shutdownTimeoutMillis, maxScans, memoryBytes, metrics);
  }

  public ServerOptions withInflightBodyBytes(long v) {
    return new ServerOptions(host, port, ioThreads, workers, queueSize, maxValueSizeBytes, v, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis, shutdownTimeoutMillis, maxScans, memoryBytes, metrics);
  }

  public ServerOptions withInflightAnswerBytes(long v) {
    return new ServerOptions(host, port, ioThreads, workers, queueSize, maxValueSizeBytes, inflightBodyBytes, v, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis, shutdownTimeoutMillis, maxScans, memoryBytes, metrics);
  }

  public ServerOptions withMaxPipelinedRequests(int v) {
    return new ServerOptions(host, port, ioThreads, workers, queueSize, maxValueSizeBytes, inflightBodyBytes, inflightAnswerBytes, v, idleTimeoutMillis, requestTimeoutMillis, shutdownTimeoutMillis, maxScans, memoryBytes, metrics);
  }

  public ServerOptions withIdleTimeoutMillis(long v) {
    return new ServerOptions(host, port, ioThreads, workers, queueSize, maxValueSizeBytes, inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, v, requestTimeoutMillis, shutdownTimeoutMillis, maxScans, memoryBytes, metrics);
  }

  public ServerOptions withRequestTimeoutMillis(long v) {
    return new ServerOptions(host, port, ioThreads, workers, queueSize, maxValueSizeBytes, inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, v, shutdownTimeoutMillis, maxScans, memoryBytes, metrics);
  }

  public ServerOptions withShutdownTimeoutMillis(long v) {
    return new ServerOptions(host, port, ioThreads, workers, queueSize, maxValueSizeBytes, inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis, v, maxScans, memoryBytes, metrics);
  }

  public ServerOptions withMetrics(boolean v) {
    return new ServerOptions(host, port, ioThreads, workers, queueSize, maxValueSizeBytes, inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis, shutdownTimeoutMillis, maxScans, memoryBytes, v);
  }

  public ServerOptions withMaxScans(int v) {
    return new ServerOptions(host, port, ioThreads, workers, queueSize, maxValueSizeBytes, inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis, shutdownTimeoutMillis, v, memoryBytes, metrics);
  }

  public ServerOptions withMemoryBytes(long v) {
    return new ServerOptions(host, port, ioThreads, workers, queueSize, maxValueSizeBytes, inflightBodyBytes, inflightAnswerBytes, maxPipelinedRequests, idleTimeoutMillis, requestTimeoutMillis, shutdownTimeoutMillis, maxScans, v, metrics);
  }
}
