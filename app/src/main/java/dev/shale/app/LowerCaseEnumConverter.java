package dev.shale.app;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * An option whose values are an enum's constants written in lower case ({@code --sync interval}),
 * accepted in any case; anything else gets a one-line error listing the values. Picocli builds a
 * converter by its no-argument constructor, so each option has a subclass naming its enum.
 */
abstract class LowerCaseEnumConverter<E extends Enum<E>> implements ITypeConverter<E> {
  private final Class<E> type;
  private final String option;

  LowerCaseEnumConverter(Class<E> type, String option) {
    this.type = type;
    this.option = option;
  }

  @Override
  public E convert(String text) {
    for (E value : type.getEnumConstants()) {
      if (value.name().equalsIgnoreCase(text.trim())) return value;
    }
    String values = Arrays.stream(type.getEnumConstants()).map(v -> v.name().toLowerCase(Locale.ROOT))
        .collect(Collectors.joining(" or "));
    throw new TypeConversionException("invalid " + option + " '" + text + "': use " + values);
  }
}
