package dev.txoutbox.rabbit;

import com.rabbitmq.client.AMQP;
import dev.txoutbox.spi.PublishResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * AMQP's rule that a message's content header (its properties and header table) fits one frame of
 * the connection's negotiated {@code frame_max}. The client refuses a larger one only as it sends
 * it, after it has counted the message's delivery tag, which fails the rest of the batch; so the
 * publisher measures each message first, as the client encodes it, and fails that message alone.
 * Thread-safe (stateless).
 */
final class ContentHeaderLimit {

  /**
   * More than every property but the header table can take: 13 of them at most, each at most a
   * 255-byte short string and its length byte, and the frame's own bytes (frame header and end,
   * class id, weight, body size, property flags).
   */
  static final int PROPERTIES_BOUND = 13 * 256 + 32;

  /** Per header: name length byte, value type byte and value length (4 bytes). */
  private static final int ENTRY_OVERHEAD = 6;

  /** The table's own length (4 bytes). */
  private static final int TABLE_OVERHEAD = 4;

  private ContentHeaderLimit() {}

  /**
   * The failure of a message whose content header does not fit one frame of {@code frameMax} bytes,
   * or {@code null} if it fits (or {@code frameMax} is 0, no limit).
   */
  static PublishResult check(AMQP.BasicProperties properties, int bodyLength, int frameMax) {
    if (frameMax <= 0 || upperBound(properties.getHeaders()) <= frameMax) {
      return null;
    }
    int size = frameSize(properties, bodyLength);
    if (size <= frameMax) {
      return null;
    }
    return PublishResult.permanent(
        "content header of "
            + size
            + " bytes (AMQP properties and header table) exceeds the connection's frame_max of "
            + frameMax
            + " bytes, which RabbitMQ requires it to fit; the event's stored headers are too large"
            + " for this broker (or raise frame_max)");
  }

  /**
   * The size of the content header frame the client sends for a message with {@code properties} and
   * a body of {@code bodyLength} bytes: encoded by the client itself, the size it compares with
   * {@code frame_max}.
   */
  static int frameSize(AMQP.BasicProperties properties, int bodyLength) {
    try {
      return properties.toFrame(0, bodyLength).size();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot encode AMQP properties", e); // in memory: never
    }
  }

  /**
   * A bound on the content header's size that costs no encoding: no UTF-8 character takes more than
   * 3 bytes per Java {@code char}. Values other than strings count as unbounded.
   */
  static long upperBound(Map<String, Object> headers) {
    long bound = PROPERTIES_BOUND + TABLE_OVERHEAD;
    if (headers == null) {
      return bound;
    }
    for (Map.Entry<String, Object> e : headers.entrySet()) {
      if (!(e.getValue() instanceof String value)) {
        return Long.MAX_VALUE;
      }
      bound += ENTRY_OVERHEAD + 3L * (e.getKey().length() + value.length());
    }
    return bound;
  }
}
