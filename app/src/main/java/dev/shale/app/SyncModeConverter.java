package dev.shale.app;

import dev.shale.storage.SyncMode;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code --sync interval|always}, in any case. */
final class SyncModeConverter implements ITypeConverter<SyncMode> {
  @Override
  public SyncMode convert(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "interval" -> SyncMode.INTERVAL;
      case "always" -> SyncMode.ALWAYS;
      default -> throw new TypeConversionException("invalid --sync '" + text + "': use interval or always");
    };
  }
}
