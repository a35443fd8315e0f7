package dev.shale.app;

import dev.shale.storage.CpuPriority;

/** {@code --compaction-priority low|normal}, in any case. */
final class CpuPriorityConverter extends LowerCaseEnumConverter<CpuPriority> {
  CpuPriorityConverter() {
    super(CpuPriority.class, "--compaction-priority");
  }
}
