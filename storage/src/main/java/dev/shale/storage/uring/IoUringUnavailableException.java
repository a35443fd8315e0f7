package dev.shale.storage.uring;

import java.io.IOException;

/**
 * This process cannot make an io_uring: the kernel has none (ENOSYS), forbids it
 * ({@code /proc/sys/kernel/io_uring_disabled}, a container's seccomp filter: EPERM), cannot give
 * it the memory it needs, or this is not Linux on x86-64 or aarch64. The caller falls back to
 * reading with {@code pread} on threads.
 */
public final class IoUringUnavailableException extends IOException {
  private static final long serialVersionUID = 1L;

  IoUringUnavailableException(String message) {
    super(message);
  }
}
