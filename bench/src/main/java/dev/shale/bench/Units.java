package dev.shale.bench;

import java.util.Locale;

/** Human-readable sizes for the report. */
final class Units {
  private Units() {}

  /** {@code bytes} as B, KiB, MiB or GiB, with one decimal past bytes. */
  static String bytes(long bytes) {
    if (bytes < 1024) return bytes + " B";
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }
}
