package dev.shale.app;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Sizes on the command line: a number of bytes, optionally followed by {@code k}, {@code m} or
 * {@code g} for KiB, MiB or GiB (powers of 1024, either case): {@code 65536}, {@code 64k},
 * {@code 16m}, {@code 1g}.
 */
final class ByteSizeConverter implements ITypeConverter<Long> {
  static final String SYNTAX = "a number of bytes, optionally with k, m or g (KiB, MiB, GiB), e.g. 16m";

  @Override
  public Long convert(String text) {
    return parse(text);
  }

  static long parse(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    int shift = switch (s.isEmpty() ? ' ' : s.charAt(s.length() - 1)) {
      case 'k' -> 10;
      case 'm' -> 20;
      case 'g' -> 30;
      default -> 0;
    };
    String digits = shift == 0 ? s : s.substring(0, s.length() - 1);
    if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) throw invalid(text);
    try {
      long number = Long.parseLong(digits);
      if (number > Long.MAX_VALUE >> shift) throw invalid(text);
      return number << shift;
    } catch (NumberFormatException e) {
      throw invalid(text);
    }
  }

  private static TypeConversionException invalid(String text) {
    return new TypeConversionException("invalid size '" + text + "': use " + SYNTAX);
  }
}
