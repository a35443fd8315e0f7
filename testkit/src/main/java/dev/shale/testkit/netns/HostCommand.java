package dev.shale.testkit.netns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs one command of the host's tools ({@code ip}, {@code nft}, {@code kill}) and reads what it printed. */
final class HostCommand {
  private static final long TIMEOUT_SECONDS = 30;

  private HostCommand() {}

  /** What a finished command printed (standard output and error together) and its exit status. */
  record Result(List<String> command, int exitStatus, String output) {
    boolean ok() {
      return exitStatus == 0;
    }

    String describe() {
      return String.join(" ", command) + " exited " + exitStatus + (output.isEmpty() ? "" : ": " + output);
    }
  }

  /** Runs {@code command}; fails the calling test with what it printed if it does not exit 0. */
  static String run(String... command) {
    Result result = attempt(command);
    if (!result.ok()) throw new IllegalStateException(result.describe());
    return result.output();
  }

  /** Runs {@code command} and returns how it ended; a command that cannot start exits -1. */
  static Result attempt(String... command) {
    List<String> args = List.of(command);
    try {
      Process process = new ProcessBuilder(args).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return new Result(args, -1, "did not finish within " + TIMEOUT_SECONDS + " s");
      }
      return new Result(args, process.exitValue(), output);
    } catch (IOException e) {
      return new Result(args, -1, "cannot run: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(args, -1, "interrupted");
    }
  }
}
