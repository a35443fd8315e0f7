package dev.shale.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.IVersionProvider;

/**
 * The version of this build and the commit it was built from, which {@code shale --version} prints
 * and a node logs when it starts: the version Maven wrote into version.properties, and the commit
 * the launcher names in the system property {@code shale.commit} (the checkout's {@code ./shale}
 * asks git at each start; a release's {@code bin/shale} names the commit the release was built
 * from). {@code shale cluster} passes it on to its nodes.
 *
 * <p>With a commit the version names it: {@code 0.1.0-SNAPSHOT} at commit {@code c84084e...} is
 * {@code 0.1.0-c84084e}, and {@code 0.1.0-c84084e-dirty} when the tree had changes; a release is
 * named after it (launcher/make-release.sh). Without one (a JVM started without a launcher, as the
 * tests start nodes) the version is Maven's and the commit unknown.
 */
final class VersionProvider implements IVersionProvider {
  static final String RESOURCE = "version.properties";
  /** The system property the launchers set: 40 hex digits, with "-dirty" after them when the tree had changes. */
  static final String COMMIT_PROPERTY = "shale.commit";

  private static final Pattern COMMIT = Pattern.compile("([0-9a-f]{40})(-dirty)?");
  private static final String SNAPSHOT = "-SNAPSHOT";
  /** The length of the commit's name in the version, as {@code git log --oneline} shows it. */
  private static final int SHORT_HASH = 7;

  @Override
  public String[] getVersion() {
    return lines(mavenVersion(), System.getProperty(COMMIT_PROPERTY));
  }

  /** The version of this build, e.g. {@code 0.1.0-c84084e}. */
  static String version() {
    return version(mavenVersion(), System.getProperty(COMMIT_PROPERTY));
  }

  /** What {@code --version} prints: {@code shale <version>}, then the commit's line. */
  static String[] lines(String mavenVersion, @Nullable String commitProperty) {
    Matcher commit = commit(commitProperty);
    String commitLine = commit == null ? "commit unknown (not started by a launcher)"
        : "commit " + commit.group(1) + (commit.group(2) != null ? ", with uncommitted changes" : "");
    return new String[] {"shale " + version(mavenVersion, commitProperty), commitLine};
  }

  /**
   * {@code mavenVersion} without "-SNAPSHOT", then the commit's first 7 hex digits and "-dirty"
   * if the tree had changes; {@code mavenVersion} itself when {@code commitProperty} names no commit.
   */
  static String version(String mavenVersion, @Nullable String commitProperty) {
    Matcher commit = commit(commitProperty);
    if (commit == null) return mavenVersion;
    String base = mavenVersion.endsWith(SNAPSHOT) ? mavenVersion.substring(0, mavenVersion.length() - SNAPSHOT.length()) : mavenVersion;
    return base + "-" + commit.group(1).substring(0, SHORT_HASH) + (commit.group(2) != null ? "-dirty" : "");
  }

  // The commit the property names, or null when it is absent or is not a commit (ignored then,
  // rather than printed: a version must not carry whatever a -D flag said).
  private static @Nullable Matcher commit(@Nullable String commitProperty) {
    if (commitProperty == null) return null;
    Matcher m = COMMIT.matcher(commitProperty);
    return m.matches() ? m : null;
  }

  static String mavenVersion() {
    try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
      if (in == null) throw new IllegalStateException(RESOURCE + " is missing from the classpath: a broken build");
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version");
      if (version == null || version.contains("${")) {
        throw new IllegalStateException(RESOURCE + " was not filtered by Maven: a broken build");
      }
      return version;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }
}
