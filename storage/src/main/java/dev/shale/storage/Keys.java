package dev.shale.storage;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;

/** The order of keys: unsigned lexicographic order of their bytes, shorter first on a tie. */
public final class Keys {
  /** Keys longer than this are refused; the table and log formats allow up to 2^31-1. */
  public static final int MAX_KEY_BYTES = 64 * 1024;

  public static final Comparator<byte[]> ORDER = Arrays::compareUnsigned;

  private Keys() {}

  public static int compare(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, b);
  }

  /** The key as UTF-8 text for log lines, shortened past 64 characters. */
  public static String toDisplay(byte[] key) {
    String s = new String(key, StandardCharsets.UTF_8);
    return s.length() <= 64 ? s : s.substring(0, 64) + "...(" + key.length + " bytes)";
  }
}
