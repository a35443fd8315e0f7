package dev.shale.app;

import dev.shale.storage.SyncMode;

/** {@code --sync interval|always}, in any case. */
final class SyncModeConverter extends LowerCaseEnumConverter<SyncMode> {
  SyncModeConverter() {
    super(SyncMode.class, "--sync");
  }
}
