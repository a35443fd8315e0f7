package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.HintLimits;
import dev.shale.server.ServerOptions;
import dev.shale.storage.EngineOptions;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code shale get|put|delete|scan} against a real node on a free port, over real HTTP. */
class ClientCommandsTest {
  @TempDir Path dir;
  private Node node;
  private String url;
  private EntityClient curl;
  private final ByteArrayOutputStream values = new ByteArrayOutputStream();
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private byte[] stdin = new byte[0];

  @BeforeEach
  void start() {
    int port = FreePort.find();
    url = "http://127.0.0.1:" + port;
    node = Node.startAlone(dir.resolve("data"), EngineOptions.defaults(), ServerOptions.defaults().withPort(port),
        HintLimits.DEFAULT, null);
    curl = new EntityClient(url);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void putThenGetGivesTheBytesBackExactly() throws Exception {
    assertThat(run("put", "--via", url, "greeting", "hello")).as(err.toString()).isZero();
    assertThat(out.toString()).isEqualTo("OK" + System.lineSeparator());
    assertThat(run("get", "--via", url, "greeting")).as(err.toString()).isZero();
    assertThat(values.toString(StandardCharsets.UTF_8)).isEqualTo("hello");

    byte[] everyByte = new byte[256];
    for (int i = 0; i < everyByte.length; i++) everyByte[i] = (byte) i;
    Path photo = dir.resolve("photo.bin");
    Files.write(photo, everyByte);
    assertThat(run("put", "--via", url, "--file", photo.toString(), "photo")).as(err.toString()).isZero();
    assertThat(curl.get("photo").body()).isEqualTo(everyByte);
    values.reset();
    assertThat(run("get", "--via", url, "photo")).as(err.toString()).isZero();
    assertThat(values.toByteArray()).isEqualTo(everyByte);
  }

  @Test
  void aValueOfDashIsReadFromStdin() throws Exception {
    stdin = "from a pipe\n".getBytes(StandardCharsets.UTF_8);
    assertThat(run("put", "--via", url, "piped", "-")).as(err.toString()).isZero();
    assertThat(new String(curl.get("piped").body(), StandardCharsets.UTF_8)).isEqualTo("from a pipe\n");
  }

  /** Issue 36, stumble 6: curl's {@code --data-binary @missing} stores an empty value; this refuses it. */
  @Test
  void aMissingFileIsRefusedAndNothingIsStored() throws Exception {
    assertThat(curl.put("photo", "the old value".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);

    assertThat(run("put", "--via", url, "--file", dir.resolve("no-such.jpg").toString(), "photo")).isEqualTo(Main.USAGE);

    assertThat(err.toString()).startsWith("shale: --file " + dir.resolve("no-such.jpg") + ": no such file; nothing was stored");
    assertThat(new String(curl.get("photo").body(), StandardCharsets.UTF_8)).isEqualTo("the old value");
    assertThat(run("put", "--via", url, "photo")).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("no value: give VALUE, --file <path>, or '-'");
  }

  @Test
  void getOfNothingIsExit1WithOneLineAndDeleteMakesNothing() throws Exception {
    assertThat(run("get", "--via", url, "never written")).isEqualTo(Main.FAILED);
    assertThat(err.toString()).isEqualTo("shale: no value for never written (404)" + System.lineSeparator());
    assertThat(values.size()).isZero();

    curl.put("a b&c", "v".getBytes(StandardCharsets.UTF_8));
    assertThat(run("delete", "--via", url, "a b&c")).as(err.toString()).isZero();
    assertThat(curl.get("a b&c").status()).isEqualTo(404);
  }

  @Test
  void scanPrintsOneEscapedLinePerEntryInKeyOrder() throws Exception {
    curl.put("user:2", "two".getBytes(StandardCharsets.UTF_8));
    curl.put("user:1", "line one\nline two\tand a tab \\ é".getBytes(StandardCharsets.UTF_8));
    curl.put("user:3", new byte[] {0, 1, (byte) 0xff, 'x'});
    curl.put("user;", "after the range".getBytes(StandardCharsets.UTF_8));
    curl.put("a", "before it".getBytes(StandardCharsets.UTF_8));

    assertThat(run("scan", "--via", url, "--start", "user:", "--end", "user;")).as(err.toString()).isZero();

    assertThat(out.toString()).isEqualTo("""
        user:1\tline one\\nline two\\tand a tab \\\\ é
        user:2\ttwo
        user:3\t\\x00\\x01\\xffx
        """);
    out.getBuffer().setLength(0);
    assertThat(run("scan", "--via", url)).as(err.toString()).isZero();
    assertThat(out.toString().lines()).hasSize(5).first().isEqualTo("a\tbefore it");
  }

  @Test
  void ackAndFromGoToTheNodeWhichSaysWhatIsWrong() throws Exception {
    assertThat(run("put", "--via", url, "--ack", "1", "--from", "1", "k", "v")).as(err.toString()).isZero();
    assertThat(run("get", "--via", url, "--from", "2", "k")).isEqualTo(Main.FAILED);
    assertThat(err.toString()).startsWith("shale: " + url + " answered GET of k with 400: ").contains("from")
        .hasLineCount(1);
    err.getBuffer().setLength(0);
    assertThat(run("scan", "--via", url, "--cluster", "--from", "2")).isEqualTo(Main.FAILED);
    assertThat(err.toString()).startsWith("shale: " + url + " answered GET /v0/entities?start=%00&scope=cluster&from=2 with 400: ")
        .hasLineCount(1);
    assertThat(run("scan", "--via", url, "--cluster")).as(err.toString()).isZero(); // a single node: its own entries
  }

  @Test
  void aNodeThatIsNotThereIsOneLine() {
    String nobody = "http://127.0.0.1:" + FreePort.find();
    for (String command : new String[] {"get", "delete", "scan"}) {
      err.getBuffer().setLength(0);
      String[] args = command.equals("scan") ? new String[] {command, "--via", nobody} : new String[] {command, "--via", nobody, "k"};
      assertThat(run(args)).as(command).isEqualTo(Main.FAILED);
      assertThat(err.toString()).as(command)
          .isEqualTo("shale: cannot connect to " + nobody + ": connection refused (is a node running there?)" + System.lineSeparator());
    }
  }

  @Test
  void theDefaultNodeIsTheServersDefaultAddress() {
    ServerOptions defaults = ServerOptions.defaults();
    assertThat(ClientOptions.DEFAULT_VIA).isEqualTo("http://" + defaults.host() + ":" + defaults.port());
  }

  private int run(String... args) {
    CommandLine commandLine = Main.commandLine(values, new PrintWriter(out, true), new PrintWriter(err, true));
    ((PutCommand) commandLine.getSubcommands().get("put").getCommand()).stdin = new ByteArrayInputStream(stdin);
    return commandLine.execute(args);
  }
}
