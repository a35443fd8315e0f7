package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Every command's --help renders as written: picocli formats descriptions as format strings, so a
 * bare "%" ("99% of the target") makes it print a warning instead of the text's line breaks.
 */
// Isolated: it replaces System.err to catch picocli's warnings, which would catch any other
// test's output too (junit-platform.properties runs two classes at once).
@Isolated
class HelpTextTest {
  @Test
  void everyCommandsHelpRendersWithoutAPicocliWarning() {
    PrintStream stderr = System.err;
    ByteArrayOutputStream warnings = new ByteArrayOutputStream();
    List<String> commands = new ArrayList<>();
    try {
      System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
      render(Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter())), commands);
    } finally {
      System.setErr(stderr);
    }
    assertThat(commands).as("commands rendered").contains("shale knee", "shale load", "shale server");
    assertThat(warnings.toString(StandardCharsets.UTF_8)).as("what picocli printed while rendering every --help").isEmpty();
  }

  /**
   * Issue 36, stumble 3: a command list ({@code shale --help}, {@code shale nodes --help}) shows
   * the first line of each command's description, and those were cut mid-sentence ("... with
   * their", "signing each call with the"). Each command's first line is a sentence of its own; and
   * no default reads "Default: .." (the current directory, ".", followed by the sentence's stop).
   */
  @Test
  void everyCommandsSummaryIsAWholeSentenceAndEveryDefaultReads() {
    List<CommandLine> commands = new ArrayList<>();
    collect(Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter())), commands);
    for (CommandLine command : commands) {
      String name = command.getCommandSpec().qualifiedName();
      if (name.endsWith(" help")) continue; // picocli's own
      String[] description = command.getCommandSpec().usageMessage().description();
      assertThat(description).as("%s has a description", name).isNotEmpty();
      assertThat(description[0]).as("the summary of %s, as the command list shows it", name).endsWith(".");
      assertThat(command.getUsageMessage()).as("%s --help", name).doesNotContain("Default: ..");
    }
    assertThat(commands).hasSizeGreaterThan(10);
  }

  private static void collect(CommandLine command, List<CommandLine> all) {
    all.add(command);
    for (CommandLine sub : command.getSubcommands().values()) collect(sub, all);
  }

  private static void render(CommandLine command, List<String> rendered) {
    command.getUsageMessage();
    rendered.add(command.getCommandSpec().qualifiedName());
    for (CommandLine sub : command.getSubcommands().values()) render(sub, rendered);
  }
}
