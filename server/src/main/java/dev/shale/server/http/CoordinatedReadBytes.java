package dev.shale.server.http;

/**
 * The answer bytes of one coordinated read, taken from the connection's {@link AnswerShare}
 * before the read starts: one value of the size lately seen per replica asked ({@link
 * RecentValueSizes}). Two things hold them: the
 * answer, until its write completes, and the replicas' answers, which the read keeps until the
 * last one is in and its read repairs are written. The answer's part comes down to its size
 * when it is known ({@link #answered}); the rest is given back when the read is all in
 * ({@link #allIn}), whichever comes first.
 *
 * <p>Confined to the connection's event loop.
 */
final class CoordinatedReadBytes {
  private final AnswerShare share;
  private final long reservedBytes;
  private long restBytes; // held for the replicas' answers once the answer has its own
  private boolean answered;
  private boolean allIn;

  CoordinatedReadBytes(AnswerShare share, long reservedBytes) {
    this.share = share;
    this.reservedBytes = reservedBytes;
  }

  /** The read's answer has {@code answerBytes}; returns the bytes its slot holds from now on. */
  long answered(long answerBytes) {
    answered = true;
    if (allIn) return share.settle(reservedBytes, answerBytes);
    long kept = Math.min(answerBytes, reservedBytes);
    restBytes = reservedBytes - kept;
    return share.settle(kept, answerBytes);
  }

  /** Every replica is in and every repair written: their bytes are free. */
  void allIn() {
    allIn = true;
    if (!answered) return; // answered() gives back what the answer does not need
    share.release(restBytes);
    restBytes = 0;
  }
}
