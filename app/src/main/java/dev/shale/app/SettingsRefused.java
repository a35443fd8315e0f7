package dev.shale.app;

/**
 * The command's settings cannot work (files named by its options cannot be used, as a TLS key that
 * is not its certificate's): exit status 2, as a usage error, with the message alone on one line.
 */
final class SettingsRefused extends RuntimeException {
  SettingsRefused(String message) {
    super(message);
  }
}
