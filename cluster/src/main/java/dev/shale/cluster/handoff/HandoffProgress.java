package dev.shale.cluster.handoff;

import dev.shale.cluster.WholeFile;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The persisted progress of the pulls ({@link PullUnit}) that bring a node the ranges it gains in
 * one change: {@code handoff/progress} in its data directory, in the format of docs/format.md
 * ("Handoff progress"). A pull advances only after the records it counts are written to the
 * store, so a restarted node resumes each pull after its last key and loses nothing.
 *
 * <p>Thread safe: the pull thread advances it, status readers take snapshots.
 */
public final class HandoffProgress {
  static final String HEADER = "shale-handoff-progress 1";
  private static final HexFormat HEX = HexFormat.of();

  private final Vfs vfs;
  private final Path file;
  private final String changeLine;
  // @GuardedBy("this"); by pull name, in the order of the file
  private final Map<String, RangeProgress> ranges = new LinkedHashMap<>();

  private HandoffProgress(Vfs vfs, Path file, String changeLine) {
    this.vfs = vfs;
    this.file = file;
    this.changeLine = changeLine;
  }

  /**
   * The progress of {@code change}'s pulls {@code names} in {@code directory}: as the file says
   * if it belongs to this change (with any other pulls it has, such as the parts of a failed-over
   * one), else from the start (and the file is replaced).
   *
   * @throws UncheckedIOException if the file cannot be read or written, or does not parse
   */
  public static HandoffProgress open(Vfs vfs, Path directory, PlacementChange change, Collection<String> names) {
    HandoffProgress progress = new HandoffProgress(vfs, directory.resolve("progress"), changeLine(change));
    try {
      vfs.createDirectories(directory);
      progress.ranges.putAll(progress.read());
      for (String name : names) progress.ranges.putIfAbsent(name, RangeProgress.start(name));
      progress.write();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the handoff's progress in " + progress.file + ": " + e.getMessage(), e);
    }
    return progress;
  }

  /**
   * The change whose progress {@code directory} holds, or null when it holds none.
   *
   * @throws IOException if the file cannot be read or its change line does not parse
   */
  public static @Nullable PlacementChange storedChange(Vfs vfs, Path directory) throws IOException {
    Path file = directory.resolve("progress");
    List<String> lines = readLines(vfs, file);
    if (lines == null) return null;
    String[] change = lines.size() < 2 ? new String[0] : lines.get(1).split(" ", -1);
    if (lines.isEmpty() || !lines.getFirst().equals(HEADER) || change.length != 4 || !change[0].equals("change")) {
      throw new IOException(file + ": not a handoff progress file with a change line");
    }
    try {
      return PlacementChange.between(NodeIds.parse(change[2]), NodeIds.parse(change[3]), Integer.parseInt(change[1]));
    } catch (IllegalArgumentException e) {
      throw new IOException(file + " line 2: " + e.getMessage(), e);
    }
  }

  public synchronized RangeProgress of(String name) {
    RangeProgress range = ranges.get(name);
    if (range == null) throw new IllegalArgumentException("not a pull of this change: " + name);
    return range;
  }

  public synchronized boolean has(String name) {
    return ranges.containsKey(name);
  }

  /** Adds pull {@code name}, to start after {@code lastKey} (null: at the first key), unless it is there already. */
  public synchronized void addFrom(String name, byte @Nullable [] lastKey) throws IOException {
    if (ranges.containsKey(name)) return;
    ranges.put(name, new RangeProgress(name, false, 0, 0, lastKey));
    write();
  }

  /** {@code records} more records of pull {@code name}, up to {@code lastKey}, are written. */
  public synchronized void advance(String name, byte[] lastKey, long records, long bytes) throws IOException {
    ranges.put(name, of(name).advance(lastKey, records, bytes));
    write();
  }

  /** Every key of pull {@code name} is written. */
  public synchronized void finish(String name) throws IOException {
    ranges.put(name, of(name).finish());
    write();
  }

  public synchronized List<RangeProgress> ranges() {
    return List.copyOf(ranges.values());
  }

  public synchronized boolean allDone() {
    return ranges.values().stream().allMatch(RangeProgress::done);
  }

  private Map<String, RangeProgress> read() throws IOException {
    Map<String, RangeProgress> stored = new LinkedHashMap<>();
    List<String> lines = readLines(vfs, file);
    if (lines == null) return stored;
    if (lines.isEmpty() || !lines.get(0).equals(HEADER)) throw malformed(1, "not a handoff progress file");
    if (lines.size() < 2 || !lines.get(1).equals(changeLine)) return stored; // another change's
    for (int i = 2; i < lines.size(); i++) {
      String[] fields = lines.get(i).split(" ", -1);
      if (fields.length != 6 || !fields[0].equals("range") || !(fields[2].equals("open") || fields[2].equals("done"))) {
        throw malformed(i + 1, "not a range line");
      }
      try {
        byte[] lastKey = fields[5].equals("-") ? null : HEX.parseHex(fields[5]);
        stored.put(fields[1], new RangeProgress(fields[1], fields[2].equals("done"), Long.parseLong(fields[3]),
            Long.parseLong(fields[4]), lastKey));
      } catch (IllegalArgumentException e) {
        throw malformed(i + 1, String.valueOf(e.getMessage()));
      }
    }
    return stored;
  }

  // The file's lines (as Files.readAllLines splits them), or null if there is no file.
  private static @Nullable List<String> readLines(Vfs vfs, Path file) throws IOException {
    try {
      return WholeFile.readIfPresent(vfs, file, "the handoff's progress")
          .map(bytes -> new String(bytes, StandardCharsets.UTF_8).lines().toList())
          .orElse(null);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private IOException malformed(int line, String why) {
    return new IOException(file + " line " + line + ": " + why);
  }

  /** Replaces the file whole ({@link WholeFile}). */
  private void write() throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add(HEADER);
    lines.add(changeLine);
    for (RangeProgress range : ranges.values()) {
      byte[] lastKey = range.lastKey();
      lines.add("range " + range.name() + " " + (range.done() ? "done" : "open") + " " + range.records() + " "
          + range.bytes() + " " + (lastKey == null ? "-" : HEX.formatHex(lastKey)));
    }
    byte[] bytes = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
    WholeFile.write(vfs, file, bytes);
  }

  private static String changeLine(PlacementChange change) {
    return "change " + change.replicas() + " " + NodeIds.join(change.before().topology().nodes()) + " "
        + NodeIds.join(change.after().topology().nodes());
  }
}
