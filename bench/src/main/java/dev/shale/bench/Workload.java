package dev.shale.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The workloads of the engine benchmark, named as in RocksDB's db_bench where db_bench has one.
 * The names are part of the command line and of the JSON report: do not rename them.
 */
public enum Workload {
  /** A fresh store; keys 0..n-1 in ascending order. */
  FILLSEQ("fillseq", true, "fresh store, n puts in key order"),
  /** A fresh store; keys 0..n-1 in a random order, each key once. */
  FILLRANDOM("fillrandom", true, "fresh store, n puts of every key once in random order"),
  /** n puts of uniformly random keys (with repeats) over the loaded key space. */
  OVERWRITE("overwrite", true, "n puts of uniformly random existing keys"),
  /** Gets of uniformly random existing keys. */
  READRANDOM("readrandom", false, "gets of uniformly random existing keys"),
  /** Gets of absent keys that sort between existing ones (an existing key + "."), as db_bench. */
  READMISSING("readmissing", false, "gets of absent keys sorting between existing keys"),
  /** A full compaction (timed apart), then gets of uniformly random existing keys. */
  READCOMPACTED("readcompacted", false, "full compaction (timed apart), then readrandom"),
  /** Seeks to uniformly random existing keys, each followed by reading the next 100 records. */
  SEEKRANDOM("seekrandom", false, "scan from a random key, next 100 records"),
  /** n deletes of uniformly random keys (with repeats: about 63% of the keys go). */
  DELETERANDOM("deleterandom", true, "n deletes of uniformly random keys"),
  /** One full scan of the store, one operation per record returned. */
  SCANALL("scanall", false, "one full scan, one op per record (run it after deleterandom)");

  /** Every workload, in the order a default run takes them. */
  public static final List<Workload> ALL = List.of(values());

  private final String cliName;
  private final boolean writes;
  private final String description;

  Workload(String cliName, boolean writes, String description) {
    this.cliName = cliName;
    this.writes = writes;
    this.description = description;
  }

  /** The name on the command line and in reports. */
  public String cliName() {
    return cliName;
  }

  public String description() {
    return description;
  }

  /** Whether the workload writes (and so has a write amplification). */
  boolean writes() {
    return writes;
  }

  /** Whether the workload starts from an empty store. */
  boolean freshStore() {
    return this == FILLSEQ || this == FILLRANDOM;
  }

  /** The workload named {@code name} (any case), or IllegalArgumentException listing the names. */
  public static Workload named(String name) {
    String wanted = name.trim().toLowerCase(Locale.ROOT);
    for (Workload w : values()) {
      if (w.cliName.equals(wanted)) return w;
    }
    throw new IllegalArgumentException(
        "--workloads: unknown workload '" + name + "'; known: " + names());
  }

  /** The names, comma-separated, in run order. */
  public static String names() {
    return Arrays.stream(values()).map(Workload::cliName).collect(Collectors.joining(","));
  }
}
