package dev.shale.server.http;

/**
 * The answer bytes of one coordinated read, taken from the connection's {@link AnswerShare}
 * before the read starts: one value of the size lately seen per replica asked ({@link
 * RecentValueSizes}), since until the read is decided its replicas' answers may all be arriving
 * at once. Once it is decided ({@link #decided}) two things are held, and only their real sizes
 * stay taken: the answer, until its write completes (its response slot gives those back), and
 * the one value the read keeps for read repair until it is all in: the answer's record, or a late
 * answer's that is newer ({@link #newerKept}). Replicas still out hold nothing: an answer not
 * newer is dropped as it comes. So a replica that does not answer (stopped, for the whole replica
 * timeout) does not hold the connection's share.
 *
 * <p>Confined to the connection's event loop.
 */
final class CoordinatedReadBytes {
  private final AnswerShare share;
  private final long reservedBytes;
  private long keptBytes; // of the value the read keeps for read repair, from its decision until it is all in
  private boolean allIn;

  CoordinatedReadBytes(AnswerShare share, long reservedBytes) {
    this.share = share;
    this.reservedBytes = reservedBytes;
  }

  /**
   * The read is decided: its answer has {@code answerBytes} and the value it keeps has {@code
   * keptBytes} (the same array as the answer's, counted twice until the answer is written: a
   * short, safe excess). Returns the bytes the answer's slot holds from now on.
   */
  long decided(long answerBytes, long keptBytes) {
    assert !allIn : "all in before decided";
    this.keptBytes = keptBytes;
    share.settle(reservedBytes, answerBytes + keptBytes);
    return answerBytes;
  }

  /**
   * A late answer newer than the kept value took its place: the read keeps {@code bytes} now.
   * They are in memory already, so more than before is counted past the budget if need be.
   */
  void newerKept(long bytes) {
    share.settle(keptBytes, bytes);
    keptBytes = bytes;
  }

  /** Every replica is in and every repair written: the kept value is free. */
  void allIn() {
    allIn = true;
    share.release(keptBytes);
    keptBytes = 0;
  }
}
