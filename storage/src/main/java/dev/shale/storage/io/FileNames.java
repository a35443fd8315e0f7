package dev.shale.storage.io;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names of the files in a data directory (docs/format.md, "The data directory"): {@code LOCK},
 * {@code MANIFEST-<n>}, {@code <n>.wal}, {@code <n>.sst}, {@code *.tmp}, where {@code <n>} is a
 * file number of at least six zero-padded decimal digits. Any other name is not Shale's.
 */
public final class FileNames {
  public static final String LOCK = "LOCK";

  /** The kinds of file Shale keeps in a data directory. */
  public enum Kind { LOG, TABLE, MANIFEST, TEMP }

  /** A parsed name; {@code number} is -1 for a temporary file. */
  public record Parsed(Kind kind, long number) {}

  // Do not change: embedded in on-disk data (the names of existing files).
  private static final Pattern NUMBERED = Pattern.compile("(\\d{6,19})\\.(wal|sst)");
  private static final Pattern MANIFEST = Pattern.compile("MANIFEST-(\\d{6,19})");

  private FileNames() {}

  public static String log(long number) {
    return String.format("%06d.wal", number);
  }

  public static String table(long number) {
    return String.format("%06d.sst", number);
  }

  public static String manifest(long number) {
    return String.format("MANIFEST-%06d", number);
  }

  /** What {@code name} is, or empty for a name that is not Shale's (left alone). */
  public static Optional<Parsed> parse(String name) {
    if (name.endsWith(".tmp")) return Optional.of(new Parsed(Kind.TEMP, -1));
    Matcher numbered = NUMBERED.matcher(name);
    if (numbered.matches()) {
      Kind kind = numbered.group(2).equals("wal") ? Kind.LOG : Kind.TABLE;
      return number(numbered.group(1)).map(n -> new Parsed(kind, n));
    }
    Matcher manifest = MANIFEST.matcher(name);
    if (manifest.matches()) return number(manifest.group(1)).map(n -> new Parsed(Kind.MANIFEST, n));
    return Optional.empty();
  }

  private static Optional<Long> number(String digits) {
    try {
      return Optional.of(Long.parseLong(digits));
    } catch (NumberFormatException tooLarge) {
      return Optional.empty();
    }
  }
}
