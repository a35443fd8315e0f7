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

/**
 * Every command's --help renders as written: picocli formats descriptions as format strings, so a
 * bare "%" ("99% of the target") makes it print a warning instead of the text's line breaks.
 */
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

  private static void render(CommandLine command, List<String> rendered) {
    command.getUsageMessage();
    rendered.add(command.getCommandSpec().qualifiedName());
    for (CommandLine sub : command.getSubcommands().values()) render(sub, rendered);
  }
}
