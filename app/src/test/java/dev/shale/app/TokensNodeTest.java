package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.HintLimits;
import dev.shale.server.ServerOptions;
import dev.shale.storage.EngineOptions;
import dev.shale.testkit.FreePort;
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

/**
 * A node alone started with tokens required, driven by the CLI: {@code shale tokens add|list|revoke}
 * with the bootstrap admin token, the client commands with {@code --token-file}, and a restart
 * that keeps the tokens ({@code <data>/tokens}).
 */
class TokensNodeTest {
  private static final String BOOTSTRAP = "shale_node-test-bootstrap-secret-0123456789abcdef";

  @TempDir Path dir;
  private Node node;
  private String url;
  private int port;
  private Path adminToken;
  private final ByteArrayOutputStream values = new ByteArrayOutputStream();
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void start() throws Exception {
    port = FreePort.find();
    url = "http://127.0.0.1:" + port;
    adminToken = dir.resolve("admin.token");
    SecretFile.write(adminToken, BOOTSTRAP.getBytes(StandardCharsets.UTF_8));
    node = startNode();
  }

  private Node startNode() {
    return Node.startAlone(dir.resolve("data"), EngineOptions.defaults(), ServerOptions.defaults().withPort(port),
        HintLimits.DEFAULT, null, null, new TokenOptions(true, BOOTSTRAP));
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void theCliAddsUsesListsAndRevokesTokensAndARestartKeepsThem() throws Exception {
    assertThat(run("tokens", "add", "app", "--scope", "read,write", "--prefix", "app/", "--via", url, "--token-file",
        adminToken.toString())).as(err.toString()).isZero();
    String secret = out.toString().strip();
    assertThat(secret).startsWith("shale_").hasSize(49);
    Path appToken = dir.resolve("app.token");
    SecretFile.write(appToken, secret.getBytes(StandardCharsets.UTF_8));

    assertThat(run("put", "--via", url, "--token-file", appToken.toString(), "app/1", "one")).as(err.toString()).isZero();
    assertThat(run("get", "--via", url, "--token-file", appToken.toString(), "app/1")).as(err.toString()).isZero();
    assertThat(values.toString(StandardCharsets.UTF_8)).isEqualTo("one");
    reset();
    assertThat(run("scan", "--via", url, "--token-file", appToken.toString(), "--start", "app/", "--end", "app0"))
        .as(err.toString()).isZero();
    assertThat(out.toString()).contains("app/1\tone");

    reset();
    assertThat(run("get", "--via", url, "app/1")).isEqualTo(Main.FAILED);
    assertThat(err.toString()).contains("401").contains("requires an API token").doesNotContain(secret, BOOTSTRAP);
    reset();
    assertThat(run("put", "--via", url, "--token-file", appToken.toString(), "other", "x")).isEqualTo(Main.FAILED);
    assertThat(err.toString()).contains("403").contains("outside its key prefixes");
    reset();
    assertThat(run("tokens", "list", "--via", url)).isEqualTo(Main.FAILED);
    assertThat(err.toString()).contains("401").contains("--token-file");

    node.close();
    node = startNode();
    reset();
    assertThat(run("tokens", "list", "--via", url, "--token-file", adminToken.toString())).as(err.toString()).isZero();
    assertThat(out.toString()).contains("app ").contains("read,write").contains("app%2F").doesNotContain(secret);
    assertThat(Files.readString(dir.resolve("data").resolve("tokens"))).doesNotContain(secret);
    reset();
    assertThat(run("get", "--via", url, "--token-file", appToken.toString(), "app/1")).as(err.toString()).isZero();

    reset();
    assertThat(run("tokens", "revoke", "app", "--via", url, "--token-file", adminToken.toString())).as(err.toString()).isZero();
    reset();
    assertThat(run("get", "--via", url, "--token-file", appToken.toString(), "app/1")).isEqualTo(Main.FAILED);
    assertThat(err.toString()).contains("401").contains("not known to this node");
  }

  @Test
  void anAdminTokenFileWithoutAuthTokensIsAUsageError() throws Exception {
    assertThat(run("server", "--port", "0", "--data", dir.resolve("other").toString(), "--admin-token-file",
        adminToken.toString())).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("--admin-token-file needs --auth tokens");
    reset();
    assertThat(run("server", "--port", "0", "--data", dir.resolve("other").toString(), "--auth", "tls")).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("--auth must be none or tokens");
  }

  private void reset() {
    values.reset();
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
  }

  private int run(String... args) {
    CommandLine commandLine = Main.commandLine(values, new PrintWriter(out, true), new PrintWriter(err, true));
    return commandLine.execute(args);
  }
}
