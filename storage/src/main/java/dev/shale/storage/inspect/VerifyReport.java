package dev.shale.storage.inspect;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@link StoreInspector#verify} found in a store.
 *
 * @param directory the data directory
 * @param findings every problem and note, in the order found (manifests, tables, logs)
 * @param manifests manifest files read
 * @param tables tables read (every one the manifest names, or every one present without a manifest)
 * @param tableRecords records read from the tables
 * @param segments log segments read
 * @param logRecords records read from the segments
 * @param bytes the bytes of every file read
 */
public record VerifyReport(Path directory, List<Finding> findings, int manifests, int tables, long tableRecords,
    int segments, long logRecords, long bytes) {
  public VerifyReport {
    findings = List.copyOf(findings);
  }

  /** True when nothing is damaged (notes allowed). */
  public boolean whole() {
    return findings.stream().noneMatch(Finding::damage);
  }

  public List<Finding> damage() {
    return findings.stream().filter(Finding::damage).toList();
  }

  public List<Finding> notes() {
    return findings.stream().filter(f -> !f.damage()).toList();
  }
}
