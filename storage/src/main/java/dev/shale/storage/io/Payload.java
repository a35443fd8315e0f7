package dev.shale.storage.io;

/**
 * The payload of one framed record, written straight into the writer's buffer: a large value is
 * never copied into an intermediate array.
 *
 * <p>{@link #writeTo} must write exactly {@link #lengthBytes} bytes, the same ones every call.
 */
public interface Payload {
  int lengthBytes();

  void writeTo(ByteSink sink);
}
