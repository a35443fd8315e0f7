package dev.shale.server;

import org.jspecify.annotations.Nullable;

/** Reasons sent in error bodies and log lines are one line each. */
public final class Reasons {
  /** Longer reasons (an echoed path, say) are cut: a reason explains, it does not echo input. */
  static final int MAX_CHARS = 512;

  private Reasons() {}

  /** {@code text} with line breaks turned into spaces and cut to {@link #MAX_CHARS}. */
  public static String oneLine(@Nullable String text) {
    String s = text == null ? "unknown error" : text;
    if (s.length() > MAX_CHARS) s = s.substring(0, MAX_CHARS) + "...";
    return s.indexOf('\n') < 0 && s.indexOf('\r') < 0 ? s : s.replace('\r', ' ').replace('\n', ' ');
  }
}
