package dev.shale.app;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.Objects;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The entry point of the {@code shale} command (the launcher script runs it). Exit status: 0
 * when the command succeeded (for the server: it stopped cleanly), 1 when it failed, 2 for a
 * usage error (an unknown or invalid option).
 */
public final class Main {
  static final int FAILED = 1;
  static final int USAGE = 2;

  private Main() {}

  public static void main(String[] args) {
    // In the console's encoding, which is what the streams were opened with.
    PrintWriter out = new PrintWriter(System.out, true, System.out.charset());
    PrintWriter err = new PrintWriter(System.err, true, System.err.charset());
    try {
      Logging.configure();
    } catch (IllegalArgumentException e) {
      err.println("shale: " + e.getMessage());
      System.exit(USAGE);
    }
    System.exit(run(args, out, err));
  }

  /** Runs the command line {@code args}, printing to {@code out} and {@code err}; returns the exit status. */
  static int run(String[] args, PrintWriter out, PrintWriter err) {
    return commandLine(out, err).execute(args);
  }

  /** The command line, printing to {@code out} and {@code err}; {@code shale get} writes values to standard output. */
  static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    return commandLine(System.out, out, err);
  }

  /** As above; {@code values}: where {@code shale get} writes a value's bytes, which {@code out} would re-encode. */
  static CommandLine commandLine(OutputStream values, PrintWriter out, PrintWriter err) {
    CommandLine commandLine = new CommandLine(new ShaleCommand())
        .setOut(out)
        .setErr(err)
        .setParameterExceptionHandler(Main::usageError)
        .setExecutionExceptionHandler((e, line, parseResult) -> failure(e, err));
    ((GetCommand) Objects.requireNonNull(commandLine.getSubcommands().get("get"), "shale get").getCommand()).valueOut = values;
    return commandLine;
  }

  private static int usageError(ParameterException e, String[] args) {
    PrintWriter err = e.getCommandLine().getErr();
    err.println("shale: " + e.getMessage());
    UnmatchedArgumentException.printSuggestions(e, err);
    err.println("Run '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help' for the options.");
    return USAGE;
  }

  private static int failure(Exception e, PrintWriter err) {
    if (e instanceof SettingsRefused) {
      err.println("shale: " + e.getMessage());
      return USAGE;
    }
    if (e instanceof StartupException || e instanceof AdminCallException || e instanceof ToolFailure
        || e instanceof dev.shale.load.LoadException) {
      err.println("shale: " + e.getMessage());
    } else {
      err.println("shale: failed: " + e);
      e.printStackTrace(err);
    }
    return FAILED;
  }
}
