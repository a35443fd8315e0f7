package dev.shale.app;

import dev.shale.storage.BackgroundPriority;

/** {@code --background-priority low|normal}, in any case. */
final class BackgroundPriorityConverter extends LowerCaseEnumConverter<BackgroundPriority> {
  BackgroundPriorityConverter() {
    super(BackgroundPriority.class, "--background-priority");
  }
}
