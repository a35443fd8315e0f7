package dev.shale.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** What the benchmark's values are made of. */
public enum ValueKind {
  /** Random bytes: incompressible, so compression can only cost time (db_bench's worst case). */
  RANDOM("random incompressible bytes"),
  /**
   * JSON-like text records (ids, names, e-mail addresses, cities, flags, tags from small
   * vocabularies), with the redundancy of real documents: LZ4 takes them to about half.
   */
  TEXT("JSON-like text");

  private final String description;

  ValueKind(String description) {
    this.description = description;
  }

  /** The name on the command line: {@code random}, {@code text}. */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  String description() {
    return description;
  }

  /** The kind a {@code --values} argument names, or IllegalArgumentException listing them. */
  public static ValueKind named(String name) {
    for (ValueKind kind : values()) {
      if (kind.cliName().equals(name.trim().toLowerCase(Locale.ROOT))) return kind;
    }
    throw new IllegalArgumentException("unknown --values '" + name + "': use "
        + Arrays.stream(values()).map(ValueKind::cliName).collect(Collectors.joining(" or ")));
  }
}
