package dev.shale.load;

import java.util.Arrays;
import java.util.stream.Collectors;

/** What the generator asks of the node; {@link #cliName} is how the command line spells it. */
public enum Workload {
  PUT("put"),
  GET("get"),
  GET_ABSENT("get-absent"),
  /** Half PUT of new keys, half GET of keys known to exist, chosen at random per request. */
  MIXED("mixed"),
  DELETE("delete"),
  /** {@code GET /v0/entities?start=k<n>&end=k<n+RANGE_SPAN>}: a range scan (issue 7). */
  RANGE("range");

  private final String cliName;

  Workload(String cliName) {
    this.cliName = cliName;
  }

  public String cliName() {
    return cliName;
  }

  /** The workload named {@code name} on the command line; a one-line message listing the names if none. */
  public static Workload parse(String name) {
    for (Workload w : values()) {
      if (w.cliName.equals(name)) return w;
    }
    throw new IllegalArgumentException("unknown workload '" + name + "'; expected one of " + names());
  }

  public static String names() {
    return Arrays.stream(values()).map(Workload::cliName).collect(Collectors.joining("|"));
  }
}
