package dev.txoutbox.sqs;

import dev.txoutbox.spi.OutboxHeaders;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * How {@link SqsPublisher} carries an event's headers in SQS message attributes, and the reader
 * that turns them back into one map on the consumer side. Stateless and thread-safe.
 *
 * <h2>The rules</h2>
 *
 * SQS allows at most 10 message attributes per message, names of 1 to 256 characters from {@code
 * [A-Za-z0-9_.-]} (no {@code AWS.}/{@code Amazon.} prefix, no leading, trailing or doubled period),
 * and non-empty values from a restricted character set. So:
 *
 * <ol>
 *   <li>The five {@link OutboxHeaders} (event id, event type, aggregate type, aggregate id,
 *       created-at) are {@code String} attributes of their own.
 *   <li>Stored headers follow as {@code String} attributes of their own while they all fit: {@code
 *       traceparent} and {@code tracestate} first, then the others by name.
 *   <li>Every header that cannot be an attribute of its own travels in one {@code String} attribute
 *       named {@value #OVERFLOW_ATTRIBUTE}, holding a flat JSON object of name to value: headers
 *       beyond the tenth attribute, headers whose name SQS refuses as an attribute name, headers
 *       whose value is empty or holds characters SQS refuses (JSON escapes them), and stored
 *       headers whose name collides with an {@link OutboxHeaders} name or with {@value
 *       #OVERFLOW_ATTRIBUTE}. When that attribute is present it takes one of the ten slots, so at
 *       most four stored headers stand alone.
 * </ol>
 *
 * No header is ever dropped. The attributes count towards SQS's message size limit (name, the type
 * {@code String} and value, in UTF-8 bytes).
 */
public final class SqsHeaders {

  /**
   * The message attribute that carries, as one JSON object, the headers that cannot be attributes
   * of their own. Present only when needed.
   */
  public static final String OVERFLOW_ATTRIBUTE = "outbox-headers";

  private SqsHeaders() {}

  /**
   * Every header of {@code message}, as {@link #read(Map)} reads its message attributes: the input
   * of outbox-inbox's {@code InboxEvent.from(...)}. Receive with {@code
   * messageAttributeNames("All")}, or the attributes are not there to read.
   *
   * @throws NullPointerException if {@code message} is null
   * @throws IllegalArgumentException if {@value #OVERFLOW_ATTRIBUTE} is not a JSON object of
   *     strings
   */
  public static Map<String, String> read(Message message) {
    return read(Objects.requireNonNull(message, "message").messageAttributes());
  }

  /**
   * Reads every header of a received message: each {@code String} (or {@code String.*}) attribute,
   * plus the entries of {@value #OVERFLOW_ATTRIBUTE}. Where a name appears both as an attribute and
   * in the JSON object, the attribute wins (so a stored header can never shadow an {@link
   * OutboxHeaders} value).
   *
   * @param attributes the message's attributes, such as {@code Message.messageAttributes()}
   * @return the headers, name to value; a new mutable map
   * @throws NullPointerException if {@code attributes} is null
   * @throws IllegalArgumentException if {@value #OVERFLOW_ATTRIBUTE} is not a JSON object of
   *     strings
   */
  public static Map<String, String> read(Map<String, MessageAttributeValue> attributes) {
    Objects.requireNonNull(attributes, "attributes");
    Map<String, String> headers = new HashMap<>();
    MessageAttributeValue overflow = attributes.get(OVERFLOW_ATTRIBUTE);
    if (overflow != null && overflow.stringValue() != null) {
      headers.putAll(HeadersJson.read(overflow.stringValue()));
    }
    attributes.forEach(
        (name, value) -> {
          boolean text = value.dataType() != null && value.dataType().startsWith("String");
          if (text && !OVERFLOW_ATTRIBUTE.equals(name) && value.stringValue() != null) {
            headers.put(name, value.stringValue());
          }
        });
    return headers;
  }
}
