package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.HintLimits;
import dev.shale.server.ServerOptions;
import dev.shale.server.tls.NodeTls;
import dev.shale.server.tls.TlsFiles;
import dev.shale.storage.EngineOptions;
import dev.shale.testkit.FreePort;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A node serving TLS, made with {@code shale certs}: the client commands over https:// with
 * --ca-cert (and --cert/--key for mutual TLS), what they say when the certificate is not trusted,
 * and the server's refusals of unusable TLS files before it starts.
 */
class TlsNodeTest {
  @TempDir Path dir;
  private final ByteArrayOutputStream values = new ByteArrayOutputStream();
  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();

  @Test
  void clientCommandsTalkHttpsToANodeTheyTrust() throws Exception {
    Path certs = makeCertificates();
    int port = FreePort.find();
    String url = "https://127.0.0.1:" + port;
    String ca = certs.resolve("ca.crt").toString();
    try (Node node = startTlsNode(certs, port, null)) {
      assertThat(run("put", "--via", url, "--ca-cert", ca, "greeting", "hello")).as(err.toString()).isZero();
      assertThat(run("get", "--via", url, "--ca-cert", ca, "greeting")).as(err.toString()).isZero();
      assertThat(values.toString(StandardCharsets.UTF_8)).isEqualTo("hello");
      assertThat(run("scan", "--via", url, "--ca-cert", ca)).as(err.toString()).isZero();
      assertThat(out.toString()).contains("greeting");
      assertThat(run("delete", "--via", url, "--ca-cert", ca, "greeting")).as(err.toString()).isZero();
      // Admin calls too (loopback, unsigned, as a single node without a secret takes them).
      assertThat(run("snapshot", "create", "--name", "tls", "--via", url, "--ca-cert", ca)).as(err.toString()).isZero();
      assertThat(out.toString()).contains("snapshots").contains("tls");
      assertThat(run("snapshot", "list", "--via", url)).isEqualTo(Main.FAILED);
      assertThat(err.toString()).contains("is not trusted").hasLineCount(1);

      assertThat(run("get", "--via", url, "greeting")).isEqualTo(Main.FAILED);
      assertThat(err.toString()).isEqualTo("shale: the certificate of https://127.0.0.1:" + port + " is not trusted (unable to find valid certification path "
          + "to requested target); give the CA that issued it with --ca-cert\n");
      assertThat(run("scan", "--via", url)).isEqualTo(Main.FAILED);
      assertThat(err.toString()).contains("is not trusted").hasLineCount(1);
      assertThat(run("get", "--via", "http://127.0.0.1:" + port, "--ca-cert", ca, "greeting")).isEqualTo(Main.USAGE);
      assertThat(err.toString()).startsWith("shale: --ca-cert, --cert and --key are for an https:// --via");
    }
  }

  /** The load generator (and its fill) speaks https:// with --ca-cert, as the client commands do. */
  @Test
  void theLoadGeneratorRunsOverHttpsAgainstANodeItTrusts() throws Exception {
    Path certs = makeCertificates();
    int port = FreePort.find();
    String url = "https://127.0.0.1:" + port;
    String ca = certs.resolve("ca.crt").toString();
    try (Node node = startTlsNode(certs, port, null)) {
      assertThat(run("load", "--url", url, "--ca-cert", ca, "--workload", "put", "--keys", "50", "--rate", "100",
          "--duration", "2s", "--warmup", "0s")).as(err.toString()).isZero();
      assertThat(out.toString()).contains("Requests/sec").doesNotContain("Non-2xx");
      assertThat(run("get", "--via", url, "--ca-cert", ca, "k0")).as(err.toString()).isZero();
      assertThat(run("load", "--url", "http://127.0.0.1:" + port, "--ca-cert", ca, "--rate", "10", "--duration", "1s"))
          .isEqualTo(Main.USAGE);
      assertThat(err.toString()).startsWith("shale: --ca-cert, --cert and --key are for an https:// URL\n");
    }
  }

  @Test
  void aNodeRequiringClientCertificatesServesOnlyClientsPresentingOne() throws Exception {
    Path certs = makeCertificates();
    assertThat(run("certs", "client", "--dir", certs.toString(), "--name", "alice")).as(err.toString()).isZero();
    int port = FreePort.find();
    String url = "https://127.0.0.1:" + port;
    String ca = certs.resolve("ca.crt").toString();
    try (Node node = startTlsNode(certs, port, certs.resolve("ca.crt"))) {
      assertThat(run("put", "--via", url, "--ca-cert", ca, "k", "v")).isEqualTo(Main.FAILED);
      assertThat(err.toString()).startsWith("shale: ").hasLineCount(1);
      assertThat(run("put", "--via", url, "--ca-cert", ca, "--cert", certs.resolve("client.alice.crt").toString(),
          "--key", certs.resolve("client.alice.key").toString(), "k", "v")).as(err.toString()).isZero();
    }
  }

  @Test
  void unusableTlsFilesRefuseTheStartWithOneLine() throws Exception {
    Path certs = makeCertificates();
    assertThat(run("certs", "node", "--dir", certs.toString(), "--name", "n2", "--host", "127.0.0.1")).isZero();
    String data = dir.resolve("data").toString();
    assertThat(run("server", "--data", data, "--port", "0", "--tls-cert", certs.resolve("node.n1.crt").toString(),
        "--tls-key", certs.resolve("node.n2.key").toString())).isEqualTo(Main.USAGE);
    assertThat(err.toString()).isEqualTo("shale: cannot serve TLS: the key " + certs.resolve("node.n2.key")
        + " is not the private key of the certificate in " + certs.resolve("node.n1.crt") + "\n");

    Files.writeString(dir.resolve("junk.pem"), "junk\n");
    assertThat(run("server", "--data", data, "--port", "0", "--tls-cert", dir.resolve("junk.pem").toString(),
        "--tls-key", certs.resolve("node.n1.key").toString())).isEqualTo(Main.USAGE);
    assertThat(err.toString()).startsWith("shale: cannot serve TLS: " + dir.resolve("junk.pem")).hasLineCount(1);

    assertThat(run("server", "--data", data, "--port", "0", "--tls-cert", certs.resolve("node.n1.crt").toString()))
        .isEqualTo(Main.USAGE);
    assertThat(err.toString()).startsWith("shale: --tls-cert and --tls-key go together");
  }

  private Path makeCertificates() {
    Path certs = dir.resolve("certs");
    assertThat(run("certs", "ca", "--dir", certs.toString())).as(err.toString()).isZero();
    assertThat(run("certs", "node", "--dir", certs.toString(), "--name", "n1", "--host", "127.0.0.1,localhost")).as(err.toString()).isZero();
    return certs;
  }

  private Node startTlsNode(Path certs, int port, Path clientCa) throws Exception {
    NodeTls tls = NodeTls.open(new TlsFiles(certs.resolve("node.n1.crt"), certs.resolve("node.n1.key"), clientCa),
        System::currentTimeMillis);
    return Node.startAlone(dir.resolve("data"), EngineOptions.defaults(), ServerOptions.defaults().withPort(port),
        HintLimits.DEFAULT, null, tls, TokenOptions.NONE);
  }

  private int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    values.reset();
    CommandLine commandLine = Main.commandLine(values, new PrintWriter(out, true), new PrintWriter(err, true));
    return commandLine.execute(args);
  }
}
