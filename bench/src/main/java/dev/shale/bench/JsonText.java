package dev.shale.bench;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The pieces of the benchmarks' JSON reports (an array of flat objects), written by hand: such a
 * report needs no library, only correct string escaping and finite numbers.
 */
public final class JsonText {
  private JsonText() {}

  /** Writes {@code objects} (each one JSON object already) to {@code file} as an array, one per line. */
  public static void writeArray(Path file, List<String> objects) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) Files.createDirectories(parent);
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      out.write(array(objects));
    }
  }

  /** {@code objects} (each one JSON object already) as an array, one per line. */
  public static String array(List<String> objects) {
    StringBuilder json = new StringBuilder("[\n");
    for (int i = 0; i < objects.size(); i++) {
      json.append("  ").append(objects.get(i)).append(i + 1 < objects.size() ? ",\n" : "\n");
    }
    return json.append("]\n").toString();
  }

  /** An object of {@code fields}, each made by {@link #field}. */
  public static String object(List<String> fields) {
    return "{" + String.join(", ", fields) + "}";
  }

  /** {@code "name": value}, the value already JSON. */
  public static String field(String name, String value) {
    return string(name) + ": " + value;
  }

  /** A JSON number, or null for NaN and infinities (which JSON cannot hold). */
  public static String number(double value) {
    if (!Double.isFinite(value)) return "null";
    return String.format(Locale.ROOT, "%.3f", value);
  }

  /** A JSON string literal: quotes, backslashes and control characters escaped. */
  public static String string(String s) {
    StringBuilder quoted = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> quoted.append("\\\"");
        case '\\' -> quoted.append("\\\\");
        case '\n' -> quoted.append("\\n");
        case '\r' -> quoted.append("\\r");
        case '\t' -> quoted.append("\\t");
        default -> {
          if (c < 0x20) quoted.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          else quoted.append(c);
        }
      }
    }
    return quoted.append('"').toString();
  }
}
